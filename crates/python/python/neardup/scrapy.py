"""``neardup.scrapy.ContentSeenMiddleware``: a Scrapy downloader middleware
that drops responses whose content was seen before (``IgnoreRequest``).

Enable it in the project's settings::

    DOWNLOADER_MIDDLEWARES = {"neardup.scrapy.ContentSeenMiddleware": 950}

Without ``NEARDUP_URL`` it judges pages in-process with a
``neardup.Deduplicator`` (``NEARDUP_METHOD``, default ``"default"``;
``NEARDUP_STATE``, a file it is loaded from at start when present and saved
to when the spider closes). With ``NEARDUP_URL`` (and ``NEARDUP_TOKEN``) it
asks a ``neardup serve`` service, shared by every crawler process
(``NEARDUP_TIMEOUT``, seconds; ``NEARDUP_RETRIES``). When the service
fails, the response is passed on (fail open) and counted in
``neardup/error``. The first page of a content is passed on;
later copies raise ``IgnoreRequest``. The verdict is in
``response.meta["neardup"]`` (``duplicate``, ``duplicate_of``,
``similarity``, ``empty``); stats ``neardup/new``, ``neardup/duplicate``,
``neardup/empty``. Only text responses (HTML, XML, plain text) are judged;
``request.meta["neardup_skip"] = True`` skips one request.
"""

import os
from typing import Any, Dict, Optional

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import TextResponse

from ._neardup import Deduplicator, NeardupError
from ._client import Client

__all__ = ["ContentSeenMiddleware"]


class ContentSeenMiddleware:
    """Drops responses whose main text was seen before; see the module."""

    def __init__(
        self,
        stats: Any = None,
        *,
        client: Optional[Client] = None,
        deduplicator: Optional[Deduplicator] = None,
        state_path: Optional[str] = None,
    ) -> None:
        self.stats = stats
        self.client = client
        self.state_path = state_path
        if client is None and deduplicator is None:
            deduplicator = Deduplicator()
        self.deduplicator = deduplicator
        self.crawler: Any = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> "ContentSeenMiddleware":
        s = crawler.settings
        if not s.getbool("NEARDUP_ENABLED", True):
            raise NotConfigured("NEARDUP_ENABLED is off")
        url = s.get("NEARDUP_URL")
        client = dedup = state = None
        if url:
            client = Client(
                url,
                token=s.get("NEARDUP_TOKEN"),
                timeout=s.getfloat("NEARDUP_TIMEOUT", 10.0),
                retries=s.getint("NEARDUP_RETRIES", 3),
            )
        else:
            state = s.get("NEARDUP_STATE")
            if state and os.path.exists(state):
                dedup = Deduplicator.load(state)
            else:
                dedup = Deduplicator(s.get("NEARDUP_METHOD", "default"))
        mw = cls(crawler.stats, client=client, deduplicator=dedup, state_path=state)
        mw.crawler = crawler
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        return mw

    def spider_closed(self, spider: Any) -> None:
        if self.deduplicator is not None and self.state_path:
            self.deduplicator.save(self.state_path)

    def _inc(self, key: str) -> None:
        if self.stats is not None:
            self.stats.inc_value(key)

    def _judge(self, response: TextResponse) -> Dict[str, Any]:
        key = response.url
        if self.client is not None:
            v = self.client.add(key, response.body, url=response.url)
            return {
                "duplicate": bool(v.get("duplicate")),
                "duplicate_of": v.get("duplicate_of"),
                "similarity": v.get("similarity"),
                "empty": bool(v.get("empty", False)),
            }
        d = self.deduplicator
        if key in d:
            # Fetched again (a later crawl with NEARDUP_STATE): judged
            # without adding it twice; its own stored copy does not count,
            # as the service answers a re-posted id with its stored verdict.
            v = d.query(response.body, url=response.url)
            if v.duplicate_of == key:
                return {"duplicate": False, "duplicate_of": None, "similarity": None, "empty": False}
        else:
            v = d.add(key, response.body, url=response.url)
        return {
            "duplicate": v.duplicate,
            "duplicate_of": v.duplicate_of,
            "similarity": v.similarity,
            "empty": v.empty,
        }

    def process_response(self, request: Any, response: Any, spider: Any = None) -> Any:
        # Scrapy 2.13+ calls this without the spider (passing it is
        # deprecated); older versions pass it.
        if not isinstance(response, TextResponse) or request.meta.get("neardup_skip"):
            return response
        try:
            verdict = self._judge(response)
        except NeardupError as e:
            self._inc("neardup/error")
            spider = spider or getattr(self.crawler, "spider", None)
            if spider is not None:
                spider.logger.warning("neardup: %s: %s", response.url, e)
            return response
        request.meta["neardup"] = verdict
        if verdict["empty"]:
            self._inc("neardup/empty")
        elif verdict["duplicate"]:
            self._inc("neardup/duplicate")
            raise IgnoreRequest(
                f"neardup: {response.url} duplicates {verdict['duplicate_of']} "
                f"(similarity {verdict['similarity']:.3f})"
            )
        else:
            self._inc("neardup/new")
        return response
