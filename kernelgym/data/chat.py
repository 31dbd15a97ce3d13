"""The episode as an OpenAI-style chat: the first prompt, the policy's answers, the judge's feedback as user turns.

One rendering shared by the collector, the chat policies, the SkyRL environment and the examples, so a model
sees the same conversation in data collection and in training.
"""

from __future__ import annotations

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}


def feedback_message(feedback: str, attempt: int, max_turns: int) -> str:
    """The user turn that follows an attempt: the verdict on it and the request for attempt ``attempt`` (1-based)."""
    return (f"Feedback on your previous attempt:\n{feedback}\n\n"
            f"Attempt {attempt} of {max_turns}. Answer with one complete Python file in a ```python block.")


def start(prompt: str, system: str | None = None) -> list[Message]:
    """A new conversation: an optional system message and the task prompt as the first user turn."""
    messages: list[Message] = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    return messages


def last_assistant_text(completion) -> str:
    """The text of a completion given as a string or as a list of chat messages (the last assistant message's
    content; all contents joined when no message has the assistant role)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    messages = [m for m in completion or [] if isinstance(m, dict)]
    answers = [m for m in messages if m.get("role") == "assistant"]
    if answers:
        return _content_text(answers[-1].get("content"))
    return "\n".join(_content_text(m.get("content")) for m in messages)


def _content_text(content) -> str:
    """Message content as text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)
