"""docs/configuration.md is what autograder.authoring.config_doc writes from the typed
configuration (autograder/shared/config.py) and the repository's otter_config.json."""
import dataclasses
import json
from pathlib import Path

from autograder.authoring import config_doc
from autograder.shared import config

ROOT = Path(__file__).resolve().parents[1]


def test_the_configuration_page_is_up_to_date():
    assert (ROOT / config_doc.OUTPUT).read_text() == config_doc.render(), (
        "docs/configuration.md is not what the generator writes: run "
        "`python -m autograder.authoring.config_doc`")


def test_every_key_of_the_file_is_documented():
    data = json.loads((ROOT / config.FILE).read_text())
    page = config_doc.render(data)
    for f in dataclasses.fields(config.Config):
        assert f.metadata.get("doc"), f"{f.name} has no documentation"
        section = getattr(config, f.type, None)
        if dataclasses.is_dataclass(section):
            for k in dataclasses.fields(section):
                assert k.metadata.get("doc"), f"{f.name}.{k.name} has no documentation"
                assert f"| `{f.name}.{k.name}` |" in page
        else:
            assert f"| `{f.name}` |" in page
