"""Deduplicator: remove, save/load, pickling, MinHash signatures."""

import pickle

import pytest

from neardup import Deduplicator, MinHash, NeardupError, TextMinHash

A = " ".join(f"a{i}" for i in range(60))
B = " ".join(f"b{i}" for i in range(60))
HALF_A_B = " ".join(f"a{i}" for i in range(30)) + " " + B


def filled(**kw):
    d = Deduplicator(threshold=0.5, **kw)
    d.add("A", text=A)
    d.add("B", text=B)
    d.add("AB", text=HALF_A_B)
    d.add("A2", text=A)
    d.add("E", text=" ... ")
    return d


def test_remove_forgets_a_document():
    d = filled()
    d.remove("A")
    assert "A" not in d and len(d) == 4
    # A copy of the removed kept document is new content now.
    assert not d.query(text=A).duplicate
    assert not d.add("A3", text=A).duplicate
    with pytest.raises(KeyError):
        d.remove("A")
    d.remove("AB")
    assert d.clusters()["B"] == ["B"]
    # A removed id can be added again.
    assert d.add("AB", text=HALF_A_B).duplicate_of == "B"


@pytest.mark.parametrize("kw", [{}, {"composite_check": False}])
def test_save_load_and_pickle_give_the_same_engine(tmp_path, kw):
    d = filled(**kw)
    d.remove("A2")
    path = tmp_path / "dedup.bin"
    d.save(path)
    for e in (Deduplicator.load(path), pickle.loads(pickle.dumps(d)),
              Deduplicator.from_bytes(d.to_bytes())):
        assert e.rows() == d.rows() and e.clusters() == d.clusters()
        assert len(e) == len(d) and "A2" not in e and "A" in e
        assert e.method == d.method and repr(e) == repr(d)
        assert e.to_bytes() == d.to_bytes()
        # Same verdicts afterwards, and the shingles were kept (exact
        # verification of the default method).
        for text in (A, B, HALF_A_B, "something else entirely " * 5):
            assert e.query(text=text).duplicate_of == d.query(text=text).duplicate_of
        assert e.add("A4", text=A).duplicate_of == "A"


def test_load_refuses_corrupt_files(tmp_path):
    data = bytearray(filled().to_bytes())
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(NeardupError, match="checksum"):
        Deduplicator.from_bytes(bytes(data))
    with pytest.raises(NeardupError, match="not a neardup"):
        Deduplicator.from_bytes(b"garbage" * 10)
    with pytest.raises(NeardupError):
        Deduplicator.load(tmp_path / "missing.bin")


def test_other_methods_save_and_load():
    d = Deduplicator("simhash")
    d.add("A", text=A)
    d.add("A2", text=A)
    e = pickle.loads(pickle.dumps(d))
    assert e.method == "simhash" and e.rows() == d.rows()


def test_add_takes_minhash_and_text_sketches():
    d = Deduplicator("minhash")
    sets = [[f"t{i}".encode() for i in range(100)], [f"u{i}".encode() for i in range(100)]]
    m1, m2 = MinHash.bulk(sets)
    near = MinHash()
    near.update_batch(sets[0][:95])
    assert not d.add("m1", signature=m1).duplicate
    assert not d.add("m2", signature=m2).duplicate
    v = d.add("near", signature=near)
    assert v.duplicate_of == "m1" and v.similarity == pytest.approx(m1.jaccard(near))
    with pytest.raises(NeardupError, match="permutations"):
        d.add("small", signature=MinHash(num_perm=64))
    with pytest.raises(NeardupError, match="minhash"):
        Deduplicator("simhash").add("x", signature=m1)
    with pytest.raises(TypeError):
        d.add("x", signature="not a signature")
    t = Deduplicator("minhash")
    t.add("a", signature=TextMinHash(A))
    assert t.add("b", text=A).duplicate_of == "a"
