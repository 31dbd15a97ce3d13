"""A policy backed by an OpenAI-compatible chat endpoint (vLLM, SGLang, TGI, llama.cpp server, OpenAI ...).

Standard library HTTP only (``urllib``): no client package needed. The endpoint is ``<base_url>/chat/completions``
with ``base_url`` as such servers print it (``http://127.0.0.1:8000/v1``).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from kernelgym.data.chat import start


class EndpointError(OSError):
    """The endpoint could not be reached or answered with an error; the message says which and why."""


class OpenAIChatPolicy:
    """Answers with ``choices[0].message.content`` of a chat completion over the conversation so far.

    The conversation is ``observation["messages"]`` when the caller provides it (the collector does: prompt,
    answers, feedback turns), else the single user turn ``observation["prompt"]``. ``system`` is put first.

    Args:
        base_url: e.g. ``"http://127.0.0.1:8000/v1"``.
        model: the served model name.
        api_key: bearer token; default: the ``api_key_env`` environment variable, if set.
        temperature, top_p, max_tokens: sampling settings sent with every request.
        seed: when set, request seed ``seed + observation["sample"]`` (reproducible samples on servers that
            honour it).
        extra_body: more request fields (e.g. ``{"top_k": 20}`` for vLLM).
        timeout_s: per request; retries: further attempts on connection errors and 5xx/429 answers.
    """

    def __init__(self, base_url: str, model: str, api_key: str | None = None, temperature: float = 0.7,
                 top_p: float = 1.0, max_tokens: int = 4096, seed: int | None = None, system: str | None = None,
                 extra_body: dict | None = None, timeout_s: float = 600.0, retries: int = 2,
                 api_key_env: str = "OPENAI_API_KEY"):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get(api_key_env)
        self.sampling = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
        self.seed = seed
        self.system = system
        self.extra_body = dict(extra_body or {})
        self.timeout_s = timeout_s
        self.retries = retries
        self.name = f"openai:{model}@{self.base_url}"

    # -- HTTP ---------------------------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: dict | None, timeout: float) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the user's endpoint
            return json.loads(response.read().decode("utf-8") or "{}")

    def check_reachable(self, timeout_s: float = 10.0) -> None:
        """Raise :class:`EndpointError` unless a server answers at ``base_url`` (any HTTP answer counts, as some
        servers do not implement ``/models``)."""
        try:
            self._request("GET", "/models", None, timeout_s)
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EndpointError(f"cannot reach endpoint {self.base_url}: {reason}") from None

    def complete(self, messages: list[dict], seed: int | None = None) -> str:
        """One chat completion; the assistant text. Raises :class:`EndpointError` after the retries."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.sampling, **self.extra_body}
        if seed is not None:
            body["seed"] = seed
        last_error = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(2.0 ** attempt, 30.0))
            try:
                answer = self._request("POST", "/chat/completions", body, self.timeout_s)
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", "replace")[:300]
                last_error = f"HTTP {exc.code}: {detail}"
                if exc.code < 500 and exc.code != 429:
                    break
                continue
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last_error = str(getattr(exc, "reason", exc))
                continue
            try:
                return answer["choices"][0]["message"]["content"] or ""
            except (KeyError, IndexError, TypeError):
                raise EndpointError(f"{self.base_url}: unexpected answer {str(answer)[:200]}") from None
        raise EndpointError(f"chat completion at {self.base_url} failed: {last_error}")

    # -- policy -------------------------------------------------------------------------------------------
    def __call__(self, observation: dict) -> str:
        messages = list(observation.get("messages") or start(observation["prompt"]))
        if self.system and not (messages and messages[0].get("role") == "system"):
            messages.insert(0, {"role": "system", "content": self.system})
        seed = None if self.seed is None else self.seed + int(observation.get("sample", 0))
        return self.complete(messages, seed)
