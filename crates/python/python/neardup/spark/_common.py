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
