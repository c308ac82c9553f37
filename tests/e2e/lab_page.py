"""A student notebook open in JupyterLab 4, driven through the page with Playwright and
Debian's Chromium (Playwright's own browser download cannot be fetched here): what a
student does with the mouse and keyboard, and what they read on the screen."""
from __future__ import annotations

from pathlib import Path

CHROMIUM = "/usr/bin/chromium"


class LabNotebook:
    def __init__(self, page, base_url: str, path: str):
        self.page = page
        page.goto(f"{base_url}/lab/tree/{path}?reset")   # ?reset: no tabs restored from before
        page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell", timeout=120_000)
        # The kernel connected and idle (the status bar says so only then), and settled: a
        # restart sent within ~2 s of the kernel's start raced its first connection and the
        # server dropped a later request (seen once in CI: a cell left at [*] forever).
        page.wait_for_function("() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
                               ".some(e => e.innerText.includes('| Idle'))", timeout=120_000)
        page.wait_for_timeout(2000)
        self.wait_idle()

    # -- the page's pieces ----------------------------------------------------------------
    def cells(self):
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")

    def output(self, index: int) -> str:
        return self.cells().nth(index).locator(".jp-OutputArea").inner_text()

    def outputs_of(self, containing: str) -> list[str]:
        texts = self.cells().evaluate_all(
            "cells => cells.map(c => [c.querySelector('.jp-InputArea')?.innerText || '',"
            " c.querySelector('.jp-OutputArea')?.innerText || ''])")
        return [out for source, out in texts if containing in source]

    # -- what a student does ----------------------------------------------------------------
    def command(self, menu: str, command: str) -> None:
        """Menu bar > menu > the item of `command` (Lumino menus name their command)."""
        self.page.locator(".lm-MenuBar-item", has_text=menu).first.click()
        self.page.locator(f"li.lm-Menu-item[data-command='{command}']").first.click()

    def type_into(self, index: int, code: str) -> None:
        """Replace cell `index`'s text as typing would, without the editor's auto-indent
        and auto-closed brackets (insert_text is one input event, like a paste)."""
        editor = self.cells().nth(index).locator(".cm-content")
        editor.click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(code)
        self.page.keyboard.press("Escape")   # back to command mode

    def run_all(self, restart: bool, timeout_s: float = 300) -> None:
        """Run > Run All Cells, or Kernel > Restart Kernel and Run All Cells (and confirm)."""
        if restart:
            self.command("Kernel", "runmenu:restart-and-run-all")
            self.page.locator(".jp-Dialog .jp-mod-accept").click()
        else:
            self.command("Run", "runmenu:run-all")
        self.wait_done(timeout_s)

    def run_cell(self, index: int, timeout_s: float = 300) -> None:
        self.cells().nth(index).locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Control+Enter")
        self.wait_done(timeout_s)

    def save(self) -> None:
        self.command("File", "docmanager:save")
        self.page.wait_for_function(
            "() => !document.querySelector('.lm-DockPanel .lm-TabBar-tab.lm-mod-current.jp-mod-dirty')",
            timeout=60_000)

    def screenshot(self, index: int, path: Path) -> None:
        """The page with cell `index` (and its output) in view."""
        self.cells().nth(index).scroll_into_view_if_needed()
        self.page.screenshot(path=str(path))

    def download(self, index: int, target: Path) -> Path:
        """Click the download link in cell `index`'s output; the file lands at `target`."""
        with self.page.expect_download(timeout=60_000) as info:
            self.cells().nth(index).locator(".jp-OutputArea a[download]").first.click()
        info.value.save_as(target)
        return target

    # -- waiting ------------------------------------------------------------------------------
    def wait_idle(self, timeout_s: float = 120) -> None:
        self.page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                                    timeout=timeout_s * 1000)

    def wait_done(self, timeout_s: float) -> None:
        """Until a cell was queued or ran ([*]), then none is and the kernel is idle."""
        busy = ("() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-InputPrompt')]"
                ".some(p => p.innerText.includes('*'))")
        self.page.wait_for_function(busy, timeout=60_000, polling=100)
        self.page.wait_for_function(f"() => !({busy})()", timeout=timeout_s * 1000, polling=500)
        self.wait_idle(timeout_s)
