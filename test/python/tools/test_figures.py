"""The pictures in README.md and docs/ are current and present.

``scripts/make_figures.sh`` draws the generated ones with tilepipe's own passes
(``inject-software-pipeline{report-svg}``, ``merge-shared-memory{report-svg}``); here it
draws them again into a temporary folder, and each must equal its checked-in copy under
docs/img.  A change that alters a picture fails this test until the script is rerun.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
IMAGES = ROOT / "docs" / "img"
GENERATED = ("gemm-schedule.svg", "gemm-arena.svg", "gemm-epilogue-arena.svg", "gemm-simulated.svg")


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("figures")
    # conftest puts the venv's tools first on PATH.
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "make_figures.sh"), str(out)],
        check=True, capture_output=True, text=True,
    )
    return out


def test_the_script_draws_exactly_the_generated_figures(regenerated):
    assert sorted(p.name for p in regenerated.iterdir()) == sorted(GENERATED)


@pytest.mark.parametrize("name", GENERATED)
def test_checked_in_figure_is_current(regenerated, name):
    fresh = (regenerated / name).read_text()
    assert (IMAGES / name).read_text() == fresh, (
        f"docs/img/{name} is stale: run bash scripts/make_figures.sh"
    )


def test_every_picture_the_docs_show_exists():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = [
        (page, target)
        for page in pages
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text())
    ]
    assert shown, "no pictures found: the pattern is wrong"
    missing = [f"{p.name}: {t}" for p, t in shown if not (p.parent / t).is_file()]
    assert not missing
