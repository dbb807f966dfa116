"""The documents: every relative link in README.md, docs/*.md and the benchmark notes
(benchmarks/results/*.md) resolves (the file exists; a ``#anchor`` names a heading of that
file, in GitHub's anchor form), and the reason table of docs/how-it-works.md lists exactly
the codes of lazify._reasons."""

from __future__ import annotations

import glob
import os
import re
import urllib.parse

import pytest

from lazify._reasons import Reason
from tests._util import ROOT

DOCUMENTS = sorted(
    [os.path.join(ROOT, "README.md"), *glob.glob(os.path.join(ROOT, "docs", "*.md")),
     *glob.glob(os.path.join(ROOT, "benchmarks", "results", "*.md"))])

#: ``[text](target)`` and ``![alt](target)``; the target ends at the first space or ``)``
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: ``[text]: target`` reference definitions
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def prose(text: str) -> str:
    """TEXT without fenced code blocks and code spans (links in them are not links)."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def anchors(path: str) -> set[str]:
    """The anchors GitHub gives the headings of the Markdown file at PATH: lower case,
    punctuation but ``-`` and ``_`` dropped, spaces as ``-``; a repeated one gets ``-1``,
    ``-2``, ... ; explicit ``<a name=...>``/``id=...`` too."""
    with open(path, encoding="utf-8") as f:
        text = FENCE.sub("", f.read())
    found: set[str] = set()
    seen: dict[str, int] = {}
    for match in re.finditer(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.M):
        heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))   # link text
        heading = re.sub(r"<[^>]+>", "", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return found


def relative_links(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        text = prose(f.read())
    targets = LINK.findall(text) + DEFINITION.findall(text)
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.I)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: os.path.relpath(p, ROOT))
def test_relative_links_resolve(document):
    broken = []
    for target in relative_links(document):
        file_part, _, anchor = target.partition("#")
        file_part = urllib.parse.unquote(file_part)
        linked = (os.path.normpath(os.path.join(os.path.dirname(document), file_part))
                  if file_part else document)
        if not os.path.exists(linked):
            broken.append(f"{target}: no file {os.path.relpath(linked, ROOT)}")
        elif anchor and linked.endswith(".md") and \
                urllib.parse.unquote(anchor).lower() not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {os.path.relpath(linked, ROOT)}")
    assert not broken, "\n".join(broken)


def test_anchors_in_githubs_form(tmp_path):
    """The anchor rule itself, on headings whose anchors GitHub shows."""
    page = tmp_path / "page.md"
    page.write_text("# Install into an application's environment\n## `lazify run`: options\n"
                    "## Limits\n## Limits\n```\n# not a heading\n```\n", encoding="utf-8")
    assert anchors(str(page)) == {"install-into-an-applications-environment",
                                  "lazify-run-options", "limits", "limits-1"}


def test_a_broken_link_is_seen(tmp_path):
    (tmp_path / "there.md").write_text("# Here\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](there.md#here) [b](missing.md) `[c](in-code.md)`\n"
                    "[d](https://example.org/x.md)\n", encoding="utf-8")
    assert relative_links(str(page)) == ["there.md#here", "missing.md"]


def test_the_results_index_links_every_benchmark_note():
    """Each dated note in benchmarks/results/ is linked from that folder's README."""
    folder = os.path.join(ROOT, "benchmarks", "results")
    linked = set(relative_links(os.path.join(folder, "README.md")))
    notes = {os.path.basename(p) for p in glob.glob(os.path.join(folder, "*.md"))} - {"README.md"}
    assert not notes - linked, f"not in benchmarks/results/README.md: {sorted(notes - linked)}"


def reason_table() -> list[str]:
    """The codes in the first column of the table under "Eligibility and reason codes"."""
    with open(os.path.join(ROOT, "docs", "how-it-works.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Eligibility and reason codes", 1)[1]
    rows = re.search(r"^\| reason \|.*?\n\|[-| ]+\|\n((?:\|.*\n)+)", section, re.M).group(1)
    codes = []
    for row in rows.splitlines():
        codes += re.findall(r"`([a-z-]+)`", row.split("|")[1])
    return codes


def test_the_reason_table_lists_every_reason_code_and_no_other():
    codes = {value for value in vars(Reason).values() if isinstance(value, Reason)}
    table = reason_table()
    assert len(table) == len(set(table)), table
    assert set(table) == codes, (f"missing from the table: {sorted(codes - set(table))}; "
                                 f"not in lazify._reasons: {sorted(set(table) - codes)}")


#: a path below benchmarks/results/ in a code span (the notes are cited so as well as linked)
RESULT_PATH = re.compile(r"`(benchmarks/results/[^`\s]+\.(?:md|json))`")


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if "benchmarks" not in d],
                         ids=lambda p: os.path.relpath(p, ROOT))
def test_a_results_file_named_in_code_exists(document):
    """A dated note or result file cited as `benchmarks/results/NAME` in README.md or
    docs/ names one that is there (not a placeholder such as ``...-COMMIT.md``)."""
    with open(document, encoding="utf-8") as f:
        cited = RESULT_PATH.findall(FENCE.sub("", f.read()))
    missing = [path for path in cited if not os.path.exists(os.path.join(ROOT, path))]
    assert not missing, f"no such file: {missing}"


def test_the_usage_list_of_reason_codes_is_complete():
    """docs/usage.md's "Reason codes:" sentence, which ``--fail-on`` users read, names
    every code (it lacked ``plain-package`` and ``audit-hook``)."""
    with open(os.path.join(ROOT, "docs", "usage.md"), encoding="utf-8") as f:
        text = f.read()
    sentence = text.split("\nReason codes: ", 1)[1].split(". Their meaning", 1)[0]
    listed = re.findall(r"`([a-z-]+)`", re.sub(r"\([^)]*\)", "", sentence))   # not the asides
    codes = {value for value in vars(Reason).values() if isinstance(value, Reason)}
    assert len(listed) == len(set(listed)) and set(listed) == codes, sorted(codes ^ set(listed))


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: os.path.relpath(p, ROOT))
def test_pip_installs_name_the_distribution(document):
    """The distribution is lazify-imports (``lazify`` on PyPI is another project): a
    ``pip install`` in the documents never asks for a bare ``lazify`` (the container
    recipe did, and never enabled lazify either)."""
    with open(document, encoding="utf-8") as f:
        text = f.read()
    commands = re.findall(r"pip install([^`;&|#\n]*)", text)
    wrong = [c for c in commands if any(re.fullmatch(r"lazify(\[.*\])?([=<>~!].*)?", arg)
                                        for arg in c.split())]
    assert not wrong, wrong
