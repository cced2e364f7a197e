"""The connection of ``MinHashLSH``'s Redis storage: the client made from
``storage_config``, and Redis errors turned into clear ones.

``storage_config["redis"]`` holds the keyword arguments of ``redis.Redis``
(``host``, ``port``, ``db``, ``password``, ``username``, ``ssl``,
``unix_socket_path``...), as datasketch's; a value may be
``{"env": NAME, "default": X}``, read from the environment. neardup also
takes ``url`` there (``redis://[[user]:password@]host:port/db`` or
``rediss://``, given to ``redis.Redis.from_url`` with the other arguments).
Errors name the server (``host:port/db``, the socket path, or the URL
without its password); the password never appears.
"""

import contextlib
import os
import re
from typing import Iterator, Tuple


def env_config(config: dict) -> dict:
    """``config`` with each ``{"env": NAME, "default": X}`` value replaced
    by the environment variable (or ``X``), as datasketch reads it."""
    return {
        k: os.getenv(v["env"], v.get("default")) if isinstance(v, dict) and "env" in v else v
        for k, v in config.items()
    }


def _redis_module():
    try:
        import redis
    except ImportError as exc:
        raise ValueError(
            "storage_config type 'redis' needs redis-py: pip install 'neardup[redis]' (or: pip install redis)"
        ) from exc
    return redis


def describe(params: dict) -> str:
    """The server of ``params``, for messages: never the password."""
    if params.get("url"):
        return re.sub(r"//[^@/]*@", "//", str(params["url"]))
    if params.get("unix_socket_path"):
        return f"unix:{params['unix_socket_path']}"
    return f"{params.get('host', 'localhost')}:{params.get('port', 6379)}/{params.get('db', 0) or 0}"


def _secrets(params: dict) -> Tuple[str, ...]:
    """The password(s) in ``params``, to be scrubbed from messages."""
    out = [str(params["password"])] if params.get("password") else []
    m = re.search(r"//[^:@/]*:([^@/]+)@", str(params.get("url") or ""))
    if m:
        out.append(m.group(1))
    return tuple(out)


def connect(storage_config: dict) -> Tuple[object, str, Tuple[str, ...]]:
    """A binary ``redis.Redis`` client for ``storage_config``, the server's
    description and the secrets to keep out of messages (``ValueError``
    without redis-py or with ``decode_responses``; the server is reached
    only by the first command)."""
    redis = _redis_module()
    config = storage_config.get("redis")
    if not isinstance(config, dict):
        raise ValueError("storage_config type 'redis' needs a 'redis' dict (the arguments of redis.Redis)")
    params = env_config(config)
    if params.get("decode_responses"):
        raise ValueError("storage_config['redis']: decode_responses must be off (the values are binary)")
    server = describe(params)
    if params.get("url"):
        rest = {k: v for k, v in params.items() if k != "url"}
        client = redis.Redis.from_url(params["url"], **rest)
    else:
        client = redis.Redis(**params)
    return client, server, _secrets(params)


@contextlib.contextmanager
def guarded(server: str, secrets: Tuple[str, ...] = ()) -> Iterator[None]:
    """Runs the block, turning redis-py's connection and timeout errors into
    ``ConnectionError`` naming ``server`` (without the password)."""
    import redis

    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        message = str(exc)
        for secret in secrets:
            message = message.replace(secret, "***")
        raise ConnectionError(f"Redis at {server} is unreachable: {message}") from None
