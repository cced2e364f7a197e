"""Helpers shared by the Spark stages: Arrow columns and materialization."""

from __future__ import annotations

def _col(batch, name: str):
    return batch.column(batch.schema.get_field_index(name))


def _materialize(df):
    """Computes ``df`` once and cuts its lineage: a reliable checkpoint when
    the SparkContext has a checkpoint directory, else a local checkpoint."""
    if df.sparkSession.sparkContext.getCheckpointDir():
        return df.checkpoint(eager=True)
    return df.localCheckpoint(eager=True)


def _utf8(batch, name: str):
    """A string column's values as their UTF-8 bytes (``None`` for nulls):
    the kernels read them as they are, where Python strings would be
    decoded here and encoded again in Rust."""
    import pyarrow as pa

    col = _col(batch, name)
    return col.cast(pa.large_binary() if pa.types.is_large_string(col.type) else pa.binary()).to_pylist()
