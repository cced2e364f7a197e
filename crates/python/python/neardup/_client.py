"""``neardup.Client``: the HTTP API of ``neardup serve`` (the ContentSeen
service) from Python, with the standard library only (``urllib``).

Every call has a timeout; connection errors, timeouts and ``503`` answers
are retried with exponential backoff (posting a document is idempotent on
the server: a retried post of the same content returns its stored
verdict). Other errors raise ``NeardupError`` with the server's code and
message; an unknown id raises ``KeyError``.
"""

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional, Union

from ._neardup import NeardupError

__all__ = ["Client"]

_RETRY_STATUS = {502, 503, 504}


class Client:
    """A client of ``neardup serve``: ``Client("http://127.0.0.1:8080",
    token=None, timeout=10.0, retries=3, backoff=0.2)``.

    ``add`` (check and store), ``check`` (the verdict, nothing stored),
    ``get``, ``remove``, ``stats``, ``health``. Verdicts are dicts:
    ``{"id", "duplicate", "duplicate_of", "similarity", "stored"}``.
    """

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        timeout: float = 10.0,
        retries: int = 3,
        backoff: float = 0.2,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff

    def _request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        content_type: Optional[str] = None,
        query: Optional[Dict[str, str]] = None,
    ) -> Any:
        target = self.url + path
        if query:
            target += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        headers = {"Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        attempt = 0
        while True:
            req = urllib.request.Request(target, data=body, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    data = resp.read()
                    return json.loads(data) if data else None
            except urllib.error.HTTPError as e:
                data = e.read()
                if e.code in _RETRY_STATUS and attempt < self.retries:
                    pass
                else:
                    raise _error(e.code, data, path) from None
            except (urllib.error.URLError, socket.timeout, ConnectionError, TimeoutError) as e:
                if attempt >= self.retries:
                    raise NeardupError(f"{method} {target}: {e}") from e
            time.sleep(self.backoff * (2**attempt))
            attempt += 1

    def _post(self, path: str, id: str, html: Union[bytes, str, None], text: Optional[str],
              url: Optional[str]) -> Dict[str, Any]:
        if (html is None) == (text is None):
            raise ValueError("give exactly one of html= or text=")
        if isinstance(html, bytes):
            # Raw HTML: the server finds the charset as a browser would.
            return self._request("POST", path, html, "text/html", {"id": id, "url": url})
        doc: Dict[str, Any] = {"id": id}
        if url is not None:
            doc["url"] = url
        if html is not None:
            doc["html"] = html
        else:
            doc["text"] = text
        return self._request("POST", path, json.dumps(doc).encode("utf-8"), "application/json")

    def add(self, id: str, html: Union[bytes, str, None] = None, *, text: Optional[str] = None,
            url: Optional[str] = None) -> Dict[str, Any]:
        """Checks a document and stores it; its verdict."""
        return self._post("/v1/documents", id, html, text, url)

    def check(self, html: Union[bytes, str, None] = None, *, text: Optional[str] = None,
              url: Optional[str] = None, id: str = "check") -> Dict[str, Any]:
        """The verdict ``add`` would give, without storing."""
        return self._post("/v1/check", id, html, text, url)

    def get(self, id: str) -> Dict[str, Any]:
        """A stored document's record (``KeyError`` when unknown)."""
        return self._request("GET", "/v1/documents/" + urllib.parse.quote(id, safe=""))

    def remove(self, id: str) -> None:
        """Removes a document (``KeyError`` when unknown)."""
        self._request("DELETE", "/v1/documents/" + urllib.parse.quote(id, safe=""))

    def stats(self) -> Dict[str, Any]:
        """The service's counters."""
        return self._request("GET", "/v1/stats")

    def health(self) -> bool:
        """Whether the service answers ``/healthz``."""
        try:
            self._request("GET", "/healthz")
            return True
        except NeardupError:
            return False

    def __repr__(self) -> str:
        return f"Client({self.url!r}, token={'***' if self.token else None})"


def _error(status: int, data: bytes, path: str) -> Exception:
    try:
        err = json.loads(data)["error"]
        code, message = err.get("code"), err.get("message")
    except (ValueError, KeyError, TypeError):
        code, message = None, data.decode("utf-8", "replace")[:200]
    if status == 404 and path.startswith("/v1/documents/"):
        return KeyError(urllib.parse.unquote(path.rsplit("/", 1)[1]))
    return NeardupError(f"neardup serve answered {status} ({code}): {message}")
