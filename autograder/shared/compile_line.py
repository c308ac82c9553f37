"""A C or C++ compiler command line (clang's and GCC's driver syntax), read as data: its
inputs, its output, and the flags that decide the machine code it makes.

Used on both sides: the compiler wrapper in the student's process
(autograder/witness/compile_record.py) reads a command to know which sources to record and
where its output goes; the executor (autograder/executor/cpp.py) reads the same recorded
command again and decides, by the lists below, which flags it honours when it builds the
recorded translation units itself. Nothing here runs a compiler.

The lists are the grader's: a flag that changes what the code computes is honoured (the
language standard, optimization, floating-point and code-generation switches, the target
CPU), a flag that only changes what the compiler prints, or that preprocessing already
applied (defines, include folders: the recorded unit is preprocessed), is dropped, and any
other flag is refused with a sentence, since the grader cannot build what it would make.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

LOG_ENV = "JAX_INTEROP_COMPILE_LOG"   # the folder a grading's compiler runs are recorded in

# Options whose value is the next argument (when not joined: `-o lib.so`, `-Iinclude`).
SEPARATE = frozenset({"-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
                      "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot", "--sysroot", "-x", "-MF",
                      "-MT", "-MQ", "-L", "-l", "-Xlinker", "-Xclang", "-Xpreprocessor", "-Xassembler", "-mllvm",
                      "-target", "--target", "-arch", "-include-pch", "-T", "-u", "-z", "-e", "--param",
                      "-working-directory"})
# Options with a joined value whose letter would otherwise read as a flag of its own.
JOINED = ("-I", "-D", "-U", "-L", "-l", "-o", "-x")

CPP_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++", ".C", ".cp", ".CPP")
C_SUFFIXES = (".c",)
OBJECT_SUFFIXES = (".o", ".obj")
LIBRARY_SUFFIXES = (".a", ".so", ".dylib")
# Inputs of the preprocessor's language (as clang names it for -x) kept as they are.
LANGUAGES = {"c": "c", "c++": "c++", "c-header": "c", "c++-header": "c++"}

# -- what the grader builds with (prefixes of the argument) --------------------------
HONOURED = ("-O", "-std=", "--std=", "-ffast-math", "-fno-fast-math", "-fmath-errno", "-fno-math-errno",
            "-ffp-contract=", "-ffp-model=", "-ffinite-math-only", "-fno-finite-math-only", "-fsigned-zeros",
            "-fno-signed-zeros", "-fassociative-math", "-fno-associative-math", "-freciprocal-math",
            "-fno-reciprocal-math", "-ftrapping-math", "-fno-trapping-math", "-funsafe-math-optimizations",
            "-fno-unsafe-math-optimizations", "-fhonor-", "-fno-honor-", "-fdenormal-fp-math", "-fexcess-precision",
            "-fstrict-aliasing", "-fno-strict-aliasing", "-fwrapv", "-fno-wrapv", "-fstrict-overflow",
            "-fno-strict-overflow", "-funroll-loops", "-fno-unroll-loops", "-fvectorize", "-fno-vectorize",
            "-fslp-vectorize", "-fno-slp-vectorize", "-fexceptions", "-fno-exceptions", "-frtti", "-fno-rtti",
            "-fvisibility", "-fno-semantic-interposition", "-fsemantic-interposition", "-fbuiltin", "-fno-builtin",
            "-fcommon", "-fno-common", "-fthreadsafe-statics", "-fno-threadsafe-statics", "-finline",
            "-fno-inline", "-fopenmp-simd", "-ftemplate-depth", "-fconstexpr-", "-fchar8_t", "-fno-char8_t",
            "-fsized-deallocation", "-fno-sized-deallocation", "-faligned-allocation", "-fno-aligned-allocation",
            "-fsigned-char", "-funsigned-char", "-march=", "-mtune=", "-mcpu=", "-mavx", "-mno-avx", "-msse",
            "-mno-sse", "-mfma", "-mno-fma", "-mf16c", "-mbmi", "-mpopcnt", "-mlzcnt", "-mprefer-vector-width=",
            "-pthread", "-stdlib=")
# Flags that change nothing the grader builds: diagnostics, debug information, dependency
# files, the kind of output, and what preprocessing already applied to the recorded unit.
DROPPED_EXACT = frozenset({"-c", "-s", "-v", "-w", "-shared", "-rdynamic", "-pipe", "-pedantic", "-pedantic-errors",
                           "-static-libstdc++", "-static-libgcc", "-nostdinc", "-nostdinc++"})
DROPPED = ("-W", "-g", "-M", "-I", "-D", "-U", "-L", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
           "-iprefix", "-iwithprefix", "-isysroot", "--sysroot", "-fPIC", "-fpic", "-fPIE", "-fpie",
           "-fdiagnostics", "-fcolor-diagnostics", "-fno-color-diagnostics", "-fmessage-length", "-ferror-limit",
           "-fno-caret-diagnostics", "-fshow-", "-fno-show-", "-fdata-sections", "-ffunction-sections",
           "-fstack-protector", "-fno-stack-protector", "-fcf-protection", "-fno-plt", "-fomit-frame-pointer",
           "-fno-omit-frame-pointer", "-fasynchronous-unwind-tables", "-fno-asynchronous-unwind-tables",
           "-funwind-tables", "-fno-unwind-tables", "-fident", "-fno-ident", "-fno-lto", "-frecord-",
           "-fno-record-", "-fdebug-", "-fno-debug-", "-fstandalone-debug", "-fno-standalone-debug",
           "-fno-gnu-unique")
# Libraries of the system the grader links as the notebook did (-lm, -lpthread, ...).
SYSTEM_LIBRARIES = frozenset({"m", "pthread", "dl", "rt", "c", "stdc++", "gcc_s", "atomic"})
LINKER_OPTIONS = ("-soname", "--as-needed", "--no-as-needed", "--no-undefined", "-z,defs", "-zdefs", "-rpath",
                  "-O1", "--gc-sections", "-Bsymbolic", "--build-id", "--hash-style", "--no-allow-shlib-undefined",
                  "-z,now", "-z,relro", "-z,noexecstack", "--whole-archive", "--no-whole-archive")


@dataclass(frozen=True)
class Source:
    path: str        # as written on the command line
    language: str    # "c" or "c++": what the driver compiles it as


@dataclass
class CompileLine:
    """One compiler run, read: what it compiles, links and writes."""
    sources: list[Source] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)      # objects and libraries it links
    output: str | None = None                            # -o, when given
    compile_only: bool = False                           # -c: one object per source
    makes_nothing: bool = False                          # -E, -S, -M, -fsyntax-only, --version: no code
    shared: bool = False
    flags: list[str] = field(default_factory=list)       # every option, with its value (joined)
    preprocess: list[str] = field(default_factory=list)  # the options that decide preprocessing

    def outputs(self) -> list[tuple[str, list[Source]]]:
        """The files this run writes, each with the sources compiled into it (a link's
        inputs are read separately)."""
        if self.makes_nothing:
            return []
        if self.compile_only:
            if self.output is not None and len(self.sources) == 1:
                return [(self.output, self.sources)]
            return [(os.path.splitext(os.path.basename(s.path))[0] + ".o", [s]) for s in self.sources]
        if not self.sources and not self.inputs:
            return []
        return [(self.output or "a.out", self.sources)]


def parse(argv: list[str], cxx_driver: bool) -> CompileLine:
    """`argv` (without the compiler itself) as a CompileLine. `cxx_driver`: clang++/g++
    (every source is C++, `.c` too), rather than clang/gcc (`.c` is C)."""
    line, language, i = CompileLine(), None, 0
    while i < len(argv):
        arg = argv[i]
        if arg in SEPARATE and i + 1 < len(argv):
            value, i = argv[i + 1], i + 2
            option = arg
        elif arg.startswith("-") and arg != "-":
            option, value, i = arg, None, i + 1
            for short in JOINED:
                if arg.startswith(short) and len(arg) > len(short) and not arg.startswith(("-include", "-isystem")):
                    option, value = short, arg[len(short):]
                    break
        else:
            i += 1
            _input(line, arg, language, cxx_driver)
            continue
        if option == "-x":
            language = None if value == "none" else value
            continue
        if option == "-o":
            line.output = value
            continue
        if option == "-l":
            line.inputs.append(f"-l{value}")
            continue
        if option == "-c":
            line.compile_only = True
        elif option in ("-E", "-S", "-M", "-MM", "-fsyntax-only", "--version", "-###", "-dumpversion",
                        "-dumpmachine", "-print-search-dirs") or option.startswith(("-print-", "--print")):
            line.makes_nothing = True
        elif option == "-shared":
            line.shared = True
        joined = option if value is None else (f"{option}{value}" if option in JOINED else f"{option}={value}"
                                               if option.startswith("--") else f"{option}\0{value}")
        line.flags.append(joined)
        if _preprocessing(option):
            line.preprocess += [option] if value is None else ([f"{option}{value}"] if option in JOINED
                                                                else [option, value])
    return line


def _input(line: CompileLine, arg: str, language: str | None, cxx_driver: bool) -> None:
    if language is not None:
        line.sources.append(Source(arg, LANGUAGES.get(language, language)))
    elif arg.endswith(CPP_SUFFIXES) or (cxx_driver and arg.endswith(C_SUFFIXES)):
        line.sources.append(Source(arg, "c++"))
    elif arg.endswith(C_SUFFIXES):
        line.sources.append(Source(arg, "c"))
    else:
        line.inputs.append(arg)


_NOT_PREPROCESSING = ("-o", "-c", "-S", "-E", "-shared", "-l", "-L", "-Wl,", "-Xlinker", "-rdynamic", "-static",
                      "-MD", "-MMD", "-MF", "-MT", "-MQ", "-MP", "-M", "-x", "-s", "-fsyntax-only")


def _preprocessing(option: str) -> bool:
    """Is `option` one that preprocessing needs (defines, include folders, the standard,
    optimization, which predefine macros)? Output, linking and dependency files are not."""
    return not any(option == o or (o.endswith(",") and option.startswith(o)) for o in _NOT_PREPROCESSING)


def digest(path: str) -> str | None:
    """The sha256 of a file, by which a library the notebook loaded is matched to the compiler
    run that wrote it (and an object to the run that made it); None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def flag_text(flag: str) -> str:
    """A flag as the student wrote it (a separate value joined back by a space)."""
    return flag.replace("\0", " ")


def judged(flags: list[str]) -> tuple[list[str], list[str], str]:
    """(compile flags the grader honours, link flags it honours, "" or the first flag it
    refuses, as written) for one recorded command's `flags`."""
    compile_flags, link_flags = [], []
    for flag in flags:
        option, _, value = flag.partition("\0")
        if option.startswith("-Wl,") or option == "-Xlinker":
            words = option.split(",")[1:] if option.startswith("-Wl,") else [value]
            if not all(w.startswith(LINKER_OPTIONS) or not w.startswith("-") for w in words):
                return compile_flags, link_flags, flag_text(flag)
            continue
        if option.startswith(HONOURED) and not value:
            compile_flags.append(option)
            if option == "-pthread" or option.startswith("-stdlib="):
                link_flags.append(option)
        elif option in DROPPED_EXACT or option.startswith(DROPPED):
            continue
        else:
            return compile_flags, link_flags, flag_text(flag)
    return compile_flags, link_flags, ""
