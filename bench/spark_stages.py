#!/usr/bin/env python3
"""Where `neardup.spark.dedup`'s time goes: one run on local[2] with the
Spark UI on, then Spark's REST API read back (issue 35).

    PATH=target/pyenv/bin:$PATH target/pyenv/bin/python bench/spark_stages.py IN.parquet OUT.parquet [DOCS_IN_ONE_TASK]

IN is a Parquet file of `text` and `n` (input order), such as the one
`bench/spark_compare.py --work DIR` leaves in DIR. Prints the call's
seconds, the wall time of the Spark jobs of each step (by the job
descriptions `dedup` sets), the number of jobs and stages, and the
stages with the most executor run time (input, shuffle written and read).
"""

import collections
import datetime
import json
import sys
import time
import urllib.request

from pyspark.sql import SparkSession

import neardup.spark as nds


def main():
    src, dst = sys.argv[1], sys.argv[2]
    # A third argument is `docs_in_one_task` (0: the distributed path).
    path = {"docs_in_one_task": int(sys.argv[3])} if len(sys.argv) > 3 else {}
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "true")
        .config("spark.ui.port", "4077")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "8g")
        .config("spark.ui.retainedJobs", "5000")
        .config("spark.ui.retainedStages", "5000")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    t = time.perf_counter()
    nds.dedup(spark.read.parquet(src), text_col="text", order_col="n", **path).write.mode("overwrite").parquet(dst)
    print("dedup and write, s", round(time.perf_counter() - t, 2))
    base = spark.sparkContext.uiWebUrl + f"/api/v1/applications/{spark.sparkContext.applicationId}"
    jobs = json.load(urllib.request.urlopen(base + "/jobs"))

    def ts(s):
        return datetime.datetime.strptime(s.replace("GMT", ""), "%Y-%m-%dT%H:%M:%S.%f")

    wall, count, step_of = collections.defaultdict(float), collections.Counter(), {}
    for j in jobs:
        what = j.get("description", "(output)").replace("neardup.spark.dedup: ", "")
        for sid in j.get("stageIds", []):
            step_of[sid] = what
        if "completionTime" in j:
            wall[what] += (ts(j["completionTime"]) - ts(j["submissionTime"])).total_seconds()
            count[what] += 1
    for what, s in wall.items():
        print(f"{s:7.1f} s {count[what]:3d} jobs  {what}")
    stages = json.load(urllib.request.urlopen(base + "/stages?status=complete"))
    print("jobs", len(jobs), "stages", len(stages))
    for s in sorted(stages, key=lambda s: -s["executorRunTime"])[:20]:
        print(
            f'{s["executorRunTime"] / 1000:7.1f} s run, in {s.get("inputBytes", 0) / 1e6:6.0f} MB, '
            f'shuffle {s.get("shuffleWriteBytes", 0) / 1e6:6.0f} MB written, {s.get("shuffleReadBytes", 0) / 1e6:6.0f} MB read, '
            f'{s["numTasks"]:3d} tasks  stage {s["stageId"]} ({step_of.get(s["stageId"], "?")})'
        )


if __name__ == "__main__":
    main()
