"""neardup's MinHash, LeanMinHash and MinHashLSH against datasketch itself
(a test-only dependency): same names, same semantics, estimates within
sampling error on the same token sets."""

import pickle
import random

import pytest

import neardup
from neardup import LeanMinHash, MinHash, MinHashLSH

datasketch = pytest.importorskip("datasketch")

# datasketch's README example.
DATA1 = [b"minhash", b"is", b"a", b"probabilistic", b"data", b"structure", b"for",
         b"estimating", b"the", b"similarity", b"between", b"datasets"]
DATA2 = [b"minhash", b"is", b"a", b"probability", b"data", b"structure", b"for",
         b"estimating", b"the", b"similarity", b"between", b"documents"]


def both(cls_nd, cls_ds, data, **kw):
    a, b = cls_nd(**kw), cls_ds(**kw)
    for d in data:
        a.update(d)
        b.update(d)
    return a, b


def test_readme_example_agrees_with_datasketch():
    m1, d1 = both(MinHash, datasketch.MinHash, DATA1)
    m2, d2 = both(MinHash, datasketch.MinHash, DATA2)
    true = len(set(DATA1) & set(DATA2)) / len(set(DATA1) | set(DATA2))
    assert true == pytest.approx(0.714, abs=1e-3)
    # 128 slots: standard error sqrt(j(1-j)/128) is about 0.04; 4 sigma.
    assert abs(m1.jaccard(m2) - true) < 0.16
    assert abs(m1.jaccard(m2) - d1.jaccard(d2)) < 0.2
    assert m1.jaccard(m1) == 1.0


def test_one_element_per_update_order_and_repeats_do_not_matter():
    fwd, rev, twice = MinHash(), MinHash(), MinHash()
    for d in DATA1:
        fwd.update(d)
    for d in reversed(DATA1):
        rev.update(d)
    for d in DATA1 + DATA1:
        twice.update(d)
    assert fwd.jaccard(rev) == 1.0 and fwd.jaccard(twice) == 1.0
    assert fwd == rev == twice
    batch = MinHash()
    batch.update_batch(DATA1)
    assert batch == fwd
    assert MinHash().is_empty() and not fwd.is_empty()


@pytest.mark.parametrize("overlap", [0, 250, 500, 900])
def test_estimates_agree_with_datasketch_on_random_sets(overlap):
    rng = random.Random(overlap)
    pool = [f"tok{rng.getrandbits(48)}".encode() for _ in range(2000)]
    a_set, b_set = pool[:1000], pool[1000 - overlap:2000 - overlap]
    true = len(set(a_set) & set(b_set)) / len(set(a_set) | set(b_set))
    na, da = both(MinHash, datasketch.MinHash, a_set, num_perm=256)
    nb, db = both(MinHash, datasketch.MinHash, b_set, num_perm=256)
    # 256 slots: standard error <= 0.031; 4 sigma each side.
    assert abs(na.jaccard(nb) - true) < 0.125
    assert abs(na.jaccard(nb) - da.jaccard(db)) < 0.18
    # count: relative error about 1/sqrt(256) = 6 %; 4 sigma.
    assert abs(na.count() - 1000) / 1000 < 0.25
    assert abs(na.count() - da.count()) / da.count() < 0.35


def test_merge_union_copy_clear_digest():
    a, _ = both(MinHash, datasketch.MinHash, DATA1)
    b, _ = both(MinHash, datasketch.MinHash, DATA2)
    u = MinHash()
    u.update_batch(DATA1 + DATA2)
    c = a.copy()
    assert c == a and c is not a
    c.merge(b)
    assert c == u == MinHash.union(a, b)
    assert a != c  # the copy was merged, not the original
    assert list(a.digest()) == list(a.hashvalues) and len(a.hashvalues) == 128
    assert all(0 <= v < 2**32 for v in a.hashvalues)
    c.clear()
    assert c.is_empty() and c == MinHash()
    with pytest.raises(ValueError):
        a.jaccard(MinHash(num_perm=64))
    with pytest.raises(ValueError):
        a.merge(MinHash(seed=2))
    assert MinHash(seed=2).seed == 2


def test_constructor_like_datasketch_and_old_call_is_explained():
    with pytest.raises(TypeError, match="from_text"):
        MinHash("some text")
    m = MinHash(num_perm=16, hashvalues=None)
    assert len(m) == 16
    h = MinHash(hashvalues=[1, 2, 3])
    assert len(h) == 3 and list(h.hashvalues) == [1, 2, 3]
    with pytest.raises(TypeError):
        MinHash().update(12)


SEEN = []


def length_hash(x):
    SEEN.append(x)
    return len(x)


def test_custom_hashfunc_is_called_per_element():
    SEEN.clear()
    m = MinHash(num_perm=32, hashfunc=length_hash)
    m.update_batch(["aa", "bbb", "cc"])
    assert SEEN == ["aa", "bbb", "cc"]
    n = MinHash(num_perm=32, hashfunc=length_hash)
    n.update("zz")  # same hash as "aa" and "cc"
    n.update("xyz")
    assert m == n
    assert pickle.loads(pickle.dumps(m)) == m


def fake_hash_func(data):
    """datasketch's ``test/utils.py`` helper: the element is its own hash."""
    return data


def test_hashfunc_stays_on_the_sketch_through_union_copy_and_pickle():
    # datasketch's test_union since its hash function is kept by union
    # (ekzhu/datasketch#318): the union has the hash function of its
    # sketches and takes what that function takes (ints here).
    m1 = MinHash(4, 1, hashfunc=fake_hash_func)
    m2 = MinHash(4, 1, hashfunc=fake_hash_func)
    m2.update(12)
    u = MinHash.union(m1, m2)
    assert u.jaccard(m2) == 1.0
    assert u.hashfunc is fake_hash_func
    u.update(13)
    assert u.jaccard(m2) < 1.0
    # merge, copy and pickling keep it; a copy of a subclass too.
    m1.merge(m2)
    assert m1.hashfunc is fake_hash_func
    assert m1.copy().hashfunc is fake_hash_func
    assert pickle.loads(pickle.dumps(m1)).hashfunc is fake_hash_func

    class Sub(MinHash):
        pass

    s = Sub(4, 1, hashfunc=fake_hash_func)
    assert type(s.copy()) is Sub and s.copy().hashfunc is fake_hash_func
    # The default is a function too, and giving it back is the default.
    m = MinHash(4, 1)
    assert m.hashfunc is neardup.xxh3_hash64
    again = MinHash(4, 1, hashfunc=m.hashfunc)
    m.update(b"x")
    again.update(b"x")
    assert again == m and m.hashfunc(b"x") == m.hashfunc("x")
    assert MinHash.union(m, again).hashfunc is neardup.xxh3_hash64
    # A LeanMinHash cannot be updated and keeps no hash function.
    with pytest.raises(AttributeError):
        LeanMinHash(u).hashfunc
    assert LeanMinHash(u) == LeanMinHash(u.copy())
    with pytest.raises(ValueError, match="callable"):
        MinHash(hashfunc=3)


def test_bulk():
    ms = MinHash.bulk([DATA1, DATA2], num_perm=64)
    assert [len(m) for m in ms] == [64, 64]
    one = MinHash(num_perm=64)
    one.update_batch(DATA1)
    assert ms[0] == one


def test_lean_minhash():
    m = MinHash()
    m.update_batch(DATA1)
    lean = LeanMinHash(m)
    assert isinstance(lean, MinHash)
    assert lean.jaccard(m) == 1.0 and lean.seed == m.seed
    assert list(lean.hashvalues) == list(m.hashvalues)
    with pytest.raises(TypeError):
        lean.update(b"x")
    assert LeanMinHash(seed=1, hashvalues=list(m.hashvalues)) == lean
    assert lean != m  # datasketch compares the types too
    assert hash(lean) == hash(LeanMinHash(m))
    assert {lean: 1}[LeanMinHash(m)] == 1


def test_compact_pickles_equal_after_loading():
    m = MinHash()
    m.update_batch(DATA1 * 1000)
    lean = LeanMinHash(m)
    for x, limit in [(m, 2048), (lean, 2048)]:
        data = pickle.dumps(x)
        assert len(data) <= limit, len(data)
        y = pickle.loads(data)
        assert type(y) is type(x) and y == x and y.jaccard(x) == 1.0
    again = pickle.loads(pickle.dumps(m))
    again.update(b"new element")  # a loaded MinHash can still be updated
    assert again != m


def test_optimal_params_are_datasketch_params():
    from datasketch.lsh import _optimal_param

    for threshold, num_perm, weights in [(0.5, 128, (0.5, 0.5)), (0.9, 128, (0.5, 0.5)),
                                         (0.7, 64, (0.2, 0.8)), (0.3, 256, (0.9, 0.1))]:
        ours = MinHashLSH(threshold=threshold, num_perm=num_perm, weights=weights)
        ds = _optimal_param(threshold, num_perm, *weights)
        assert (ours.b, ours.r) == tuple(ds), (threshold, num_perm, weights)
    explicit = MinHashLSH(num_perm=128, params=(16, 8))
    assert (explicit.b, explicit.r) == (16, 8)
    with pytest.raises(ValueError):
        MinHashLSH(num_perm=128, params=(20, 8))
    with pytest.raises(ValueError):
        MinHashLSH(threshold=1.5)
    with pytest.raises(ValueError):
        MinHashLSH(weights=(0.5, 0.6))


def test_lsh_insert_query_remove_like_datasketch():
    m1, d1 = both(MinHash, datasketch.MinHash, DATA1)
    m2, d2 = both(MinHash, datasketch.MinHash, DATA2)
    m3, d3 = both(MinHash, datasketch.MinHash, [b"something", b"else", b"entirely"])
    ours = MinHashLSH(threshold=0.5, num_perm=128)
    theirs = datasketch.MinHashLSH(threshold=0.5, num_perm=128)
    for key, m, d in [("m2", m2, d2), ("m3", m3, d3)]:
        ours.insert(key, m)
        theirs.insert(key, d)
    assert sorted(ours.query(m1)) == sorted(theirs.query(d1)) == ["m2"]
    assert len(ours) == 2 and "m2" in ours and "m1" not in ours
    assert "m3" in ours.keys and len(ours.keys) == 2
    with pytest.raises(ValueError):
        ours.insert("m2", m2)
    with pytest.raises(ValueError):
        ours.query(MinHash(num_perm=64))
    ours.remove("m2")
    assert ours.query(m1) == [] and "m2" not in ours
    with pytest.raises(ValueError):
        ours.remove("m2")
    ours.remove("m3")
    assert ours.is_empty() and all(not t for t in ours._tables)
    lean = LeanMinHash(m2)
    ours.insert("lean", lean)
    assert ours.query(m2) == ["lean"]
    back = pickle.loads(pickle.dumps(ours))
    assert back.query(m2) == ["lean"]


def test_lsh_recall_and_precision_agree_with_datasketch():
    rng = random.Random(7)
    base = [f"w{rng.getrandbits(40)}".encode() for _ in range(200)]
    sets = {}
    for i in range(60):
        keep = rng.choice([1.0, 0.9, 0.3, 0.1])
        sets[f"k{i}"] = [t for t in base if rng.random() < keep] + [f"x{i}-{j}".encode() for j in range(5)]
    ours, theirs = MinHashLSH(threshold=0.8), datasketch.MinHashLSH(threshold=0.8)
    sketches = {}
    for k, s in sets.items():
        n, d = both(MinHash, datasketch.MinHash, s)
        sketches[k] = (n, d)
        ours.insert(k, n)
        theirs.insert(k, d)
    q = set(base)
    qn, qd = both(MinHash, datasketch.MinHash, sorted(q))
    def jac(s):
        return len(q & set(s)) / len(q | set(s))

    # (b, r) = (9, 13): a set of Jaccard >= 0.97 shares no band with
    # probability < 1e-4, one of Jaccard < 0.35 shares one with < 1e-4.
    assert (ours.b, ours.r) == (9, 13)
    truth = {k for k, s in sets.items() if jac(s) >= 0.97}
    got_ours, got_theirs = set(ours.query(qn)), set(theirs.query(qd))
    assert truth and truth <= got_ours and truth <= got_theirs
    far = {k for k, s in sets.items() if jac(s) < 0.35}
    assert far
    assert not (far & got_ours) and not (far & got_theirs)


def test_minhash_repr_and_module():
    assert repr(MinHash(num_perm=8)).startswith("MinHash(num_perm=8, seed=1")
    assert MinHash.__module__ == "neardup" and MinHashLSH.__module__ == "neardup"
    assert neardup.MinHash is MinHash


def test_lean_serialize_is_datasketch_format():
    m = MinHash(seed=7)
    m.update_batch(DATA1)
    lean = LeanMinHash(m)
    for order in "@<>!":
        buf = bytearray(lean.bytesize(order))
        lean.serialize(buf, order)
        theirs = datasketch.LeanMinHash.deserialize(buf, order)
        assert theirs.seed == 7 and list(theirs.hashvalues) == list(lean.hashvalues)
        assert LeanMinHash.deserialize(buf, order) == lean
        back = bytearray(theirs.bytesize(order))
        theirs.serialize(back, order)
        assert back == buf
    assert lean.bytesize() == 8 + 4 + 4 * 128
    with pytest.raises(ValueError):
        lean.serialize(bytearray(10))
    with pytest.raises(ValueError):
        lean.bytesize("x")
    d = datasketch.LeanMinHash(datasketch.MinHash())
    if getattr(d, "scheme", "legacy") != "legacy":  # datasketch 2.0's default
        buf = bytearray(d.bytesize())
        d.serialize(buf)
        with pytest.raises(ValueError, match="legacy"):
            LeanMinHash.deserialize(buf)


def _mh(tokens, num_perm=16):
    m = MinHash(num_perm=num_perm)
    for t in tokens:
        m.update(t)
    return m


def test_lsh_sessions_merge_and_query_buffer_have_datasketch_semantics():
    a, b, c = _mh([b"a", b"x"]), _mh([b"b", b"y"]), _mh([b"a", b"x"])
    lsh = MinHashLSH(threshold=0.5, num_perm=16)
    with lsh.insertion_session(buffer_size=10) as s:
        s.insert("a", a)
        s.insert("b", b)
    assert lsh.buffer_size == 10 and sorted(lsh.keys) == ["a", "b"]
    # hashtables: one per band, band key -> keys; get_counts from them.
    assert len(lsh.hashtables) == lsh.b
    assert all(sum(t.values()) == 2 for t in lsh.get_counts())
    assert all("a" in t[h] for t, h in zip(lsh.hashtables, lsh.keys["a"]))
    assert lsh.hashtables[0].get(b"no such band") == set()
    # The query buffer: the keys every buffered query finds.
    lsh.add_to_query_buffer(a)
    lsh.add_to_query_buffer(c)
    assert lsh.collect_query_buffer() == ["a"]
    assert lsh.collect_query_buffer() == []
    # merge: same parameters only; overlapping keys refused when asked.
    other = MinHashLSH(threshold=0.5, num_perm=16)
    other.insert("c", c)
    with pytest.raises(ValueError):
        lsh.merge(MinHashLSH(threshold=0.5, num_perm=32))
    lsh.merge(other)
    assert sorted(lsh.query(a)) == ["a", "c"]
    with pytest.raises(ValueError, match="overlapping"):
        lsh.merge(other, check_overlap=True)
    with lsh.deletion_session() as s:
        s.remove("a")
        s.remove("c")
    assert lsh.query(a) == [] and list(lsh.keys) == ["b"]
    with pytest.raises(ValueError):
        with lsh.deletion_session() as s:
            s.remove("a")
    # Indexes survive pickling with their tables' interface.
    again = pickle.loads(pickle.dumps(lsh))
    assert again.hashtables[0].itemcounts() == lsh.hashtables[0].itemcounts()


def test_minhash_gpu_mode_permutations_and_scheme():
    m = MinHash(num_perm=8, seed=3, gpu_mode="detect")
    p = m.permutations
    assert p.shape == (2, 8) and (p[0] >= 1).all() and (p < (1 << 61) - 1).all()
    assert (MinHash(num_perm=8, seed=3).permutations == p).all()
    assert not (MinHash(num_perm=8, seed=4).permutations == p).all()
    assert m.scheme == "legacy"
    m.update_batch([b"a", b"b"])
    with pytest.raises(RuntimeError, match="GPU"):
        MinHash(num_perm=8, gpu_mode="always").update_batch([b"a"])
    with pytest.raises(ValueError, match="gpu_mode"):
        MinHash(num_perm=8, gpu_mode="sometimes")
    with pytest.raises(ValueError):
        LeanMinHash(m).permutations
