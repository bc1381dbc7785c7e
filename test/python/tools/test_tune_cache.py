"""The tuning cache (tilepipe/drivers/tune_cache.py): a repeated ``tilepipe tune``
answers from it without compiling, an overlapping one reuses the overlap, and every
part of the key -- kernel text, tile sizes, depth, index arguments, shapes, target
(calibrated rates included), ptxas on/off, tilepipe itself -- makes a miss when it
changes."""

from __future__ import annotations

from pathlib import Path

import pytest

import tilepipe.drivers.tune as tune_module
import tilepipe.drivers.tune_cache as tune_cache
from tilepipe.core.targets import get_target
from tilepipe.drivers.cli import main
from tilepipe.drivers.tune import _cache_key, tune
from tilepipe.drivers.tune_cache import TuneCache, cache_dir
from tilepipe.drivers.tune_evaluate import Config, evaluate
from tilepipe.schedule_sim.calibration import Calibration, calibrated_target

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm_tune.mlir"
TEXT = EXAMPLE.read_text()


@pytest.fixture
def evaluations(monkeypatch) -> list:
    """The configurations compiled (in this process: jobs=1), in order."""
    seen = []

    def counting(job):
        seen.append(job[0])
        return evaluate(job)

    monkeypatch.setattr(tune_module, "evaluate", counting)
    return seen


def _tune(cache, depths=(2,), text=TEXT, **options):
    return tune([(str(EXAMPLE), text)], "sm_80", list(depths), run_ptxas=False, jobs=1,
                cache=cache, **options)


def test_a_repeated_tune_compiles_nothing(tmp_path, evaluations):
    cache = TuneCache(tmp_path)
    first = _tune(cache)
    assert len(evaluations) == 4 and not any(o.cached for o in first)
    again = _tune(cache)
    assert len(evaluations) == 4  # nothing compiled the second time
    assert all(o.cached for o in again)
    fields = lambda o: (o.config, o.text, o.arena_bytes, o.cycles, o.step, o.demand, o.blocks,  # noqa: E731
                        o.rejected, o.prediction, o.seconds)
    assert [fields(o) for o in again] == [fields(o) for o in first]
    assert tune_module.best(again).config == tune_module.best(first).config


def test_a_changed_depth_list_reuses_the_overlap(tmp_path, evaluations):
    cache = TuneCache(tmp_path)
    _tune(cache, depths=(2,))
    outcomes = _tune(cache, depths=(2, 3))
    assert [o.cached for o in outcomes] == [True, False] * 4
    assert [c.num_stages for c in evaluations[4:]] == [3] * 4
    # Another candidate list is another kernel text (the key is the text as written):
    # every configuration is compiled again.
    evaluations.clear()
    wider = TEXT.replace("block_K = [64, 128]", "block_K = [64, 128, 256]")
    _tune(cache, depths=(2,), text=wider)
    assert len(evaluations) == 6


def _key(**changes) -> str:
    target = changes.pop("target", get_target("sm_80"))
    job = dict(config=Config("gemm_tune.mlir", 2, (("block_M", 64), ("block_K", 64))), text=TEXT,
               target=target, index_args={}, shapes={}, ptxas=True)
    job.update(changes)
    return _cache_key(tuple(job.values()))


def test_every_part_of_the_key_makes_a_miss(monkeypatch):
    base = _key()
    assert _key() == base  # deterministic
    sm80 = get_target("sm_80")
    faster = calibrated_target(sm80, Calibration("sm_80", 1e-9, copy_rate_scale=2.0))
    changed = {
        "kernel text": _key(text=TEXT + "// a comment\n"),
        "tile sizes": _key(config=Config("gemm_tune.mlir", 2, (("block_M", 128), ("block_K", 64)))),
        "num_stages": _key(config=Config("gemm_tune.mlir", 3, (("block_M", 64), ("block_K", 64)))),
        "index args": _key(index_args={"n": 4}),
        "shapes": _key(shapes={"A": (1024, 1024)}),
        "target": _key(target=get_target("sm_90")),
        "calibrated rates": _key(target=faster),
        "ptxas": _key(ptxas=False),
    }
    assert all(key != base for key in changed.values()), changed
    assert len(set(changed.values())) == len(changed)
    # The kernel's path is not part of it: the same text elsewhere is the same entry.
    assert _key(config=Config("elsewhere/gemm.mlir", 2, (("block_M", 64), ("block_K", 64)))) == base
    monkeypatch.setattr(tune_cache, "compiler_identity", lambda: "0.2.0+other-sources")
    assert _key() != base  # another tilepipe


def test_a_corrupt_entry_is_a_miss(tmp_path, evaluations):
    cache = TuneCache(tmp_path)
    _tune(cache)
    for entry in tmp_path.rglob("*.json"):
        entry.write_text("{not json")
    assert not any(o.cached for o in _tune(cache)) and len(evaluations) == 8


def test_the_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEPIPE_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TILEPIPE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "tilepipe"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "tilepipe"
    assert TuneCache().folder == tmp_path / "home" / ".cache" / "tilepipe" / "tune"


def test_the_command_line_uses_the_cache_unless_told_not_to(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TILEPIPE_CACHE_DIR", str(tmp_path))
    args = ["tune", str(EXAMPLE), "--num-stages", "2", "--no-ptxas", "-j", "1", "-o", str(tmp_path / "k.mlir")]
    assert main([*args, "--no-cache"]) == 0
    assert "4 evaluated, 0 from the cache" in capsys.readouterr().err
    assert not (tmp_path / "tune").exists()
    assert main(args) == 0
    assert "4 evaluated, 0 from the cache" in capsys.readouterr().err
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "0 evaluated, 4 from the cache" in err and err.count("fits (cached)") == 4
