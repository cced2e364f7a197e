"""datasketch's own unit tests run against neardup, as a datasketch user
switching to neardup would run them: the modules ``test_minhash.py``,
``test_lean_minhash.py`` and ``test_lsh.py`` of datasketch 1.7.0 (the last
sdist on PyPI that ships its tests), vendored unmodified in
``datasketch_upstream/`` with datasketch's MIT license.

A shim maps the module names: ``datasketch``, ``datasketch.minhash``,
``datasketch.lean_minhash`` and ``datasketch.lsh`` give neardup's
``MinHash``, ``LeanMinHash`` and ``MinHashLSH``; the sketches neardup does
not provide (``bBitMinHash``, ``WeightedMinHashGenerator``) come from the
installed datasketch and are fed neardup's objects. The shim is in place
only while the modules are imported (their names are bound then), so the
rest of the suite sees the real datasketch.

Expected failures, each with its reason: the tests that compare raw slot
values with datasketch's own (neardup's element hash and permutations are
not datasketch's, by design: see the README).

The four Redis-backed tests (``test_*_redis`` of ``test_lsh.py``) run
against a REAL redis-server (the ``redis_server`` fixture of conftest.py,
on a free local port), not a fake. They ``import mockredis`` and patch
``redis.Redis`` with a function that calls
``mockredis.mock_redis_client(**kwargs)``: the shim's ``mockredis`` module
returns a real ``redis.Redis`` client of the test's server instead (the
hard-coded ``localhost:6379`` ignored). The tests then set the client's
``connection_pool`` and ``response_callbacks`` to ``None`` (fields of
mockredis's fake that datasketch's storage read); the real client ignores
those two assignments, and keeps working. They are skipped only when
redis-server or redis-py is missing.
"""

import importlib.util
import pathlib
import sys
import types
import unittest
import unittest.mock

import pytest

import neardup

datasketch = pytest.importorskip("datasketch", reason="datasketch is not installed (pip install datasketch)")
pytest.importorskip("numpy", reason="numpy is not installed")

UPSTREAM = pathlib.Path(__file__).parent / "datasketch_upstream"

# Tests that compare raw slot values with datasketch's: neardup hashes
# elements with XXH3 (not SHA-1) and draws its permutations from splitmix64
# (not NumPy's generator), so slot values differ while estimates agree.
SLOT_VALUES = (
    "neardup's slot values are not datasketch's by design (XXH3 element hash, "
    "splitmix64 permutations): this test compares raw slot values with datasketch's"
)
EXPECTED_FAILURES = {
    # Compares the slots of MinHash(4, 1) after update(b"Hello") with the
    # values datasketch computes (SHA-1 of the bytes, NumPy's permutations).
    "test_minhash.TestMinHash.test_byte_tokens": SLOT_VALUES,
}
# The port of the redis-server the Redis-backed tests use (set per test).
_SERVER = {}


@pytest.fixture(autouse=True)
def _real_redis_for_redis_tests(request):
    """For the ``*_redis`` tests: the real server, emptied, that
    ``mockredis.mock_redis_client`` connects to (the client's class made
    here, before the test patches ``redis.Redis``)."""
    if not request.node.name.endswith("_redis"):
        yield
        return
    config = request.getfixturevalue("redis_config")
    import redis

    class RealRedis(redis.Redis):
        """A real ``redis.Redis`` that keeps its connection pool and response
        callbacks when a test assigns ``None`` to them (as it does to
        mockredis's fake)."""

        def __setattr__(self, name, value):
            if value is None and name in ("connection_pool", "response_callbacks") and name in self.__dict__:
                return
            super().__setattr__(name, value)

    _SERVER["client"] = lambda: RealRedis(**config)
    yield
    _SERVER.clear()
    # The index was written to the real server, not elsewhere.
    with redis.Redis(**config) as check:
        assert check.dbsize() > 0, "the test left nothing on the real redis-server"


def _mock_redis_client(**_ignored):
    """What the tests' ``mockredis.mock_redis_client`` returns: a real
    client of the test's redis-server (the arguments, localhost:6379, are
    ignored)."""
    if "client" not in _SERVER:
        raise RuntimeError("mockredis.mock_redis_client called outside a *_redis test")
    return _SERVER["client"]()


def _fake_hash_func(data):
    """datasketch's ``test/utils.py`` helper (not in its sdist): the element
    is its own hash (the tests update with ints)."""
    return data


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


def _shim():
    """The modules the upstream tests import, by name."""
    from datasketch import b_bit_minhash, weighted_minhash

    mods = {
        "datasketch.minhash": _module("datasketch.minhash", MinHash=neardup.MinHash),
        "datasketch.lean_minhash": _module("datasketch.lean_minhash", LeanMinHash=neardup.LeanMinHash),
        "datasketch.lsh": _module("datasketch.lsh", MinHashLSH=neardup.MinHashLSH),
        "datasketch.b_bit_minhash": b_bit_minhash,
        "datasketch.weighted_minhash": weighted_minhash,
        "test.utils": _module("test.utils", fake_hash_func=_fake_hash_func),
    }
    mods["datasketch"] = _module(
        "datasketch",
        MinHash=neardup.MinHash,
        LeanMinHash=neardup.LeanMinHash,
        MinHashLSH=neardup.MinHashLSH,
        minhash=mods["datasketch.minhash"],
        lean_minhash=mods["datasketch.lean_minhash"],
        lsh=mods["datasketch.lsh"],
        b_bit_minhash=b_bit_minhash,
        weighted_minhash=weighted_minhash,
    )
    # Imported by test_lsh.py for its Redis tests: a real client, always
    # (an installed mockredis is not used).
    mods["mockredis"] = _module("mockredis", mock_redis_client=_mock_redis_client)
    if importlib.util.find_spec("mock") is None:
        mods["mock"] = _module("mock", patch=unittest.mock.patch)
    return mods


def _load(stem):
    """Imports ``datasketch_upstream/<stem>.py`` with the shim in place."""
    mods = _shim()
    saved = {name: sys.modules.get(name) for name in mods}
    sys.modules.update(mods)
    try:
        spec = importlib.util.spec_from_file_location(f"datasketch_upstream_{stem}", UPSTREAM / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def _collect(stem):
    """The module's TestCase classes, renamed ``<stem>.<Class>`` for pytest,
    with the expected failures marked."""
    module = _load(stem)
    out = {}
    for name, cls in vars(module).items():
        if not (isinstance(cls, type) and issubclass(cls, unittest.TestCase) and name.startswith("Test")):
            continue
        for attr in dir(cls):
            key = f"{stem}.{name}.{attr}"
            if key in EXPECTED_FAILURES:
                setattr(cls, attr, pytest.mark.xfail(reason=EXPECTED_FAILURES[key], strict=True)(getattr(cls, attr)))
        out[f"Test_{stem}_{name}"] = cls
    return out


for _stem in ("test_minhash", "test_lean_minhash", "test_lsh"):
    globals().update(_collect(_stem))
