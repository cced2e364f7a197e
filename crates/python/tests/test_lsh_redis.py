"""``MinHashLSH`` over Redis (``storage_config={"type": "redis", ...}``)
against a real redis-server (the ``redis_server`` fixture of conftest.py):
the same results as the in-memory index, one index per basename, the
atomic ``insert_if_new`` under threads, one round trip per insert and
query, and clear errors."""

import pickle
import random
import threading

import pytest

import neardup

NUM_PERM = 64


def _sketch(tokens):
    m = neardup.MinHash(NUM_PERM)
    m.update_batch([str(t).encode() for t in tokens])
    return m


def _corpus(rng, groups=12, per_group=3):
    """``(key, sketch)``: groups of near-duplicates (one token of 60
    changed) under mixed key types, and a few singletons."""
    out = []
    for g in range(groups):
        base = [rng.randrange(10**9) for _ in range(60)]
        for j in range(per_group):
            tokens = list(base)
            tokens[rng.randrange(60)] = rng.randrange(10**9)
            key = (g, j) if g % 3 == 0 else (f"doc-{g}-{j}" if g % 3 == 1 else g * 100 + j)
            out.append((key, _sketch(tokens)))
    return out


def _redis_lsh(config, **kwargs):
    kwargs.setdefault("threshold", 0.5)
    return neardup.MinHashLSH(num_perm=NUM_PERM, storage_config={"type": "redis", "redis": config, **kwargs.pop("storage", {})}, **kwargs)


def _same(mem, red, sketches):
    """The two indexes give the same answers."""
    assert len(mem) == len(red) and mem.is_empty() == red.is_empty()
    for _, m in sketches:
        assert sorted(map(repr, mem.query(m))) == sorted(map(repr, red.query(m)))
    assert mem.get_counts() == red.get_counts()
    assert {pickle.loads(k) for k in red.keys} == set(mem.keys)
    for key in mem.keys:
        assert key in red
        assert red.keys[pickle.dumps(key)] == list(mem.keys[key])
        for i, band in enumerate(mem.keys[key][: mem.b]):
            assert pickle.dumps(key) in red.hashtables[i][band]
    for i in range(mem.b):
        assert len(red.hashtables[i]) == len(mem.hashtables[i])
        assert sorted(red.hashtables[i]) == sorted(mem.hashtables[i])


def test_results_equal_the_in_memory_index(redis_config):
    rng = random.Random(7)
    docs = _corpus(rng)
    mem = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    red = _redis_lsh(redis_config)
    assert (mem.b, mem.r) == (red.b, red.r) and red.is_empty()
    for key, m in docs:
        mem.insert(key, m)
        red.insert(key, m)
    _same(mem, red, docs)
    some = [k for k, _ in docs[::4]]
    assert mem.get_subset_counts(*some) == red.get_subset_counts(*some)
    with pytest.raises(ValueError, match="already exists"):
        red.insert(docs[0][0], docs[0][1])
    with pytest.raises(KeyError):
        red.get_subset_counts("never inserted")
    # Twice without the check: the bands twice, as datasketch's list.
    mem.insert(docs[1][0], docs[2][1], check_duplication=False)
    red.insert(docs[1][0], docs[2][1], check_duplication=False)
    _same(mem, red, docs)
    for key in some + [docs[1][0]]:
        mem.remove(key)
        red.remove(key)
    _same(mem, red, docs)
    with pytest.raises(ValueError, match="does not exist"):
        red.remove(some[0])
    for m in (docs[3][1], docs[4][1]):
        mem.add_to_query_buffer(m)
        red.add_to_query_buffer(m)
    assert sorted(map(repr, mem.collect_query_buffer())) == sorted(map(repr, red.collect_query_buffer()))
    for key in list(mem.keys):
        mem.remove(key)
        red.remove(key)
    assert red.is_empty() and red.get_counts() == [{} for _ in range(red.b)]


def test_sessions_buffer_and_equal_the_in_memory_index(redis_server, redis_config):
    docs = _corpus(random.Random(8))
    mem = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    red = _redis_lsh(redis_config)
    with mem.insertion_session(buffer_size=10) as s:
        for key, m in docs:
            s.insert(key, m)
    before = redis_server.command_calls().get("evalsha", 0)
    with red.insertion_session(buffer_size=10) as s:
        for key, m in docs[:9]:
            s.insert(key, m)
        # Buffered: nothing reached the server yet.
        assert redis_server.command_calls().get("evalsha", 0) == before and len(red) == 0
        for key, m in docs[9:]:
            s.insert(key, m)
    _same(mem, red, docs)
    gone = [k for k, _ in docs[::3]]
    with mem.deletion_session(buffer_size=4) as s:
        for key in gone:
            s.remove(key)
    with red.deletion_session(buffer_size=4) as s:
        for key in gone:
            s.remove(key)
    _same(mem, red, docs)
    with pytest.raises(ValueError, match="already exists"):
        with red.insertion_session() as s:
            s.insert(docs[1][0], docs[1][1])
    with pytest.raises(ValueError, match="does not exist"):
        with red.deletion_session() as s:
            s.remove(gone[0])


def test_merge_equals_the_in_memory_merge(redis_config):
    docs = _corpus(random.Random(9))
    half = len(docs) // 2
    mems = [neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM) for _ in range(2)]
    reds = [_redis_lsh(redis_config) for _ in range(2)]
    for lsh_pair, part in ((mems, (docs[:half], docs[half:])), (reds, (docs[:half], docs[half:]))):
        for lsh, chunk in zip(lsh_pair, part):
            for key, m in chunk:
                lsh.insert(key, m)
    mems[0].merge(mems[1])
    reds[0].merge(reds[1], check_overlap=True)
    _same(mems[0], reds[0], docs)
    with pytest.raises(ValueError, match="overlapping"):
        reds[0].merge(reds[1], check_overlap=True)
    # An in-memory index merged into a Redis one, and the reverse.
    extra = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    extra.insert("extra", docs[0][1])
    reds[0].merge(extra)
    mems[0].merge(extra)
    _same(mems[0], reds[0], docs)
    back = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    back.merge(reds[0])
    _same(back, reds[0], docs)


def test_one_basename_is_one_index(redis_config):
    docs = _corpus(random.Random(10), groups=3)
    a = _redis_lsh(redis_config, storage={"basename": b"shared"})
    b = _redis_lsh(redis_config, storage={"basename": "shared"})
    other = _redis_lsh(redis_config)
    for key, m in docs:
        a.insert(key, m)
    assert len(b) == len(docs) and other.is_empty()
    assert docs[0][0] in b.query(docs[0][1])
    b.remove(docs[0][0])
    assert docs[0][0] not in a
    revived = pickle.loads(pickle.dumps(a))
    assert len(revived) == len(docs) - 1 and revived.query(docs[1][1]) == a.query(docs[1][1])
    with pytest.raises(ValueError, match="num_perm,b,r"):
        neardup.MinHashLSH(num_perm=NUM_PERM, params=(4, 4),
                           storage_config={"type": "redis", "redis": redis_config, "basename": b"shared"})
    raw = _redis_lsh(redis_config, prepickle=False)
    raw.insert(b"k", docs[1][1])
    assert raw.query(docs[1][1]) == [b"k"] and list(raw.keys) == [b"k"]
    with pytest.raises(TypeError, match="bytes"):
        raw.insert("k", docs[1][1])


def test_insert_if_new_keeps_one_per_group_under_threads(redis_config):
    rng = random.Random(11)
    threads = 8
    for _ in range(3):  # bounded: a few rounds, each on a fresh index
        docs = _corpus(rng, groups=20, per_group=4)
        basename = b"race%d" % rng.randrange(10**9)
        lshs = [_redis_lsh(redis_config, storage={"basename": basename}) for _ in range(threads)]
        order = list(docs)
        rng.shuffle(order)
        results, barrier = {}, threading.Barrier(threads)

        def work(t):
            barrier.wait()
            for key, m in order[t::threads]:
                results[key] = lshs[t].insert_if_new(key, m)

        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=60)
        assert not any(w.is_alive() for w in workers)
        kept = [key for key, found in results.items() if found == []]
        assert len(results) == len(docs) and len(lshs[0]) == len(kept) == 20
        group = {key: i // 4 for i, (key, _) in enumerate(docs)}
        assert sorted(group[k] for k in kept) == list(range(20))
        for key, found in results.items():
            assert found == [] or [group[f] for f in found] == [group[key]]


def test_insert_if_new_in_memory():
    docs = _corpus(random.Random(12), groups=2, per_group=2)
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    assert lsh.insert_if_new(docs[0][0], docs[0][1]) == []
    assert lsh.insert_if_new(docs[1][0], docs[1][1]) == [docs[0][0]]
    assert lsh.insert_if_new(docs[2][0], docs[2][1]) == [] and len(lsh) == 2


def test_one_round_trip_per_insert_query_and_remove(redis_server, redis_config):
    docs = _corpus(random.Random(13), groups=6)
    lsh = _redis_lsh(redis_config)  # loads the scripts (SCRIPT LOAD)

    def top_level(op):
        before = redis_server.command_calls()
        op()
        after = redis_server.command_calls()
        # Commands a script runs are counted too: the script call itself
        # is the one the client sent.
        sent = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
        sent.pop("info")
        return sent

    b = lsh.b
    for key, m in docs[1:]:
        # One EVALSHA each, and exactly the commands its script runs.
        assert top_level(lambda: lsh.insert(key, m)) == {"evalsha": 1, "hget": 1, "incr": 1, "hset": 2, "sadd": b}
        assert top_level(lambda: lsh.query(m)) == {"evalsha": 1, "sunion": 1, "hmget": 1}
        assert top_level(lambda: lsh.insert_if_new(("new", key), m)) == {"evalsha": 1, "sunion": 1, "hmget": 1}
        assert top_level(lambda: lsh.remove(key)) == {"evalsha": 1, "hget": 1, "srem": b, "hdel": 2}


def test_unreachable_server_is_a_clear_error():
    from real_redis import free_port

    pytest.importorskip("redis", reason="redis-py is not installed (pip install redis)")
    port = free_port()
    config = {"host": "127.0.0.1", "port": port, "password": "s3cret-Pa55", "socket_connect_timeout": 2}
    with pytest.raises(ConnectionError, match=f"127.0.0.1:{port}") as err:
        _redis_lsh(config)
    assert "s3cret-Pa55" not in str(err.value)
    url = {"url": f"redis://user:s3cret-Pa55@127.0.0.1:{port}/0"}
    with pytest.raises(ConnectionError, match=f"redis://127.0.0.1:{port}/0") as err:
        _redis_lsh(url)
    assert "s3cret-Pa55" not in str(err.value)


def test_without_redis_py_or_with_a_wrong_config(monkeypatch):
    with pytest.raises(ValueError, match="Unknown storage type"):
        neardup.MinHashLSH(storage_config={"type": "cassandra"})
    with pytest.raises(ValueError, match="prepickle"):
        neardup.MinHashLSH(prepickle=True)
    monkeypatch.setitem(__import__("sys").modules, "redis", None)
    with pytest.raises(ValueError, match=r"neardup\[redis\]"):
        _redis_lsh({"host": "127.0.0.1", "port": 1})
