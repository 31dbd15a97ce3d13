"""A tiny randomly initialised causal LM and its tokenizer, built offline, for the trainer-adapter tests.

The tokenizer is character level (printable ASCII and newline) with a chat template, and has two "program" tokens
whose text is a whole fenced answer: the GOOD kernel of the test tasks and a WRONG one. :func:`answer_only` lists
every other token but the end-of-turn one, for ``suppress_tokens``: a policy restricted to those three tokens
answers with complete programs (or nothing), so a random model's answers get real, varied scores from the judge.
"""

from __future__ import annotations

from pathlib import Path

from kernelgym.testing.candidates import GOOD, candidate

WRONG = candidate(expr="tl.maximum(x, 0.0)")
GOOD_ANSWER = f"```python\n{GOOD}\n```\n"
WRONG_ANSWER = f"```python\n{WRONG}\n```\n"
END = "<|end|>"
ROLES = ["<|system|>", "<|user|>", "<|assistant|>", "<|tool|>"]
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def tokenizer():
    """A ``PreTrainedTokenizerFast``: pad, end-of-turn (= eos), unknown, the role markers, the characters, then
    the two program tokens (the last two ids)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", END, "<unk>"] + ROLES
    chars = [chr(c) for c in range(32, 127)] + ["\n"]
    vocab = {token: i for i, token in enumerate(specials + chars)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    tok.add_special_tokens(specials)
    tok.add_tokens([GOOD_ANSWER, WRONG_ANSWER])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token=END, unk_token="<unk>")
    fast.chat_template = CHAT_TEMPLATE
    fast.padding_side = "left"
    return fast


def model(tok, seed: int = 0):
    """A 2-layer LLaMA with hidden size 32, random weights (seeded)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=8192,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, bos_token_id=None,
                         tie_word_embeddings=False)
    return LlamaForCausalLM(config)


def answer_ids(tok) -> list[int]:
    """The end-of-turn token and the two program tokens."""
    return [tok.eos_token_id, tok.convert_tokens_to_ids(GOOD_ANSWER), tok.convert_tokens_to_ids(WRONG_ANSWER)]


def answer_only(tok) -> list[int]:
    """Every token id but :func:`answer_ids` (for ``suppress_tokens``)."""
    keep = set(answer_ids(tok))
    return [i for i in range(len(tok)) if i not in keep]


def save(tok, lm, path: Path) -> Path:
    """The model and tokenizer in a folder, as ``from_pretrained`` reads them (no network)."""
    lm.save_pretrained(path)
    tok.save_pretrained(path)
    return path
