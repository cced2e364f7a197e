"""The installed distribution's metadata: what ``pip install
'neardup[EXTRA]'`` brings, read with importlib.metadata, against what the
blocks of each extra need."""

import importlib.metadata as md

import pytest

packaging_requirements = pytest.importorskip("packaging.requirements")
packaging_utils = pytest.importorskip("packaging.utils")


def requirements(dist, extras=()):
    """The requirements of installed ``dist`` with ``extras``, as pip reads
    them: the base ones and those marked with one of the extras."""
    out = []
    for line in md.distribution(dist).requires or []:
        r = packaging_requirements.Requirement(line)
        if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in ("", *extras)):
            out.append(r)
    return out


def brought(dist, extras):
    """The names of the packages ``pip install 'dist[extras]'`` brings,
    following the extras of the requirements that are installed here."""
    names, todo = set(), [(dist, tuple(extras))]
    while todo:
        d, ex = todo.pop()
        for r in requirements(d, ex):
            name = packaging_utils.canonicalize_name(r.name)
            if (name, tuple(sorted(r.extras))) in names:
                continue
            names.add((name, tuple(sorted(r.extras))))
            try:
                md.distribution(r.name)
            except md.PackageNotFoundError:
                continue
            todo.append((r.name, tuple(sorted(r.extras))))
    return {n for n, _ in names}


def test_the_datatrove_extra_brings_what_its_readers_and_writers_need():
    """neardup's datatrove example reads WARC with ``WarcReader`` and writes
    ``JsonlWriter``: they need datatrove's ``io`` extra (warcio, cchardet,
    python-magic, orjson, ...), so ``neardup[datatrove]`` must bring it."""
    try:
        needed = {
            packaging_utils.canonicalize_name(r.name)
            for r in requirements("datatrove", ("io",))
            if r.marker is not None and r.marker.evaluate({"extra": "io"})
            and not r.marker.evaluate({"extra": ""})
        }
    except md.PackageNotFoundError:
        pytest.skip("datatrove is not installed (pip install datatrove)")
    assert {"warcio", "orjson"} <= needed, needed  # datatrove's io extra, as known
    got = brought("neardup", ("datatrove",))
    assert "datatrove" in got
    assert needed <= got, f"neardup[datatrove] does not bring {sorted(needed - got)}"
    # Declared through datatrove's own extra, not copied (it follows
    # datatrove's list as that changes).
    own = [r for r in requirements("neardup", ("datatrove",)) if r.name == "datatrove"]
    assert own and all("io" in r.extras for r in own), own
