"""Data collection: policies that answer tasks, episode records, crash-safe writers and the collection loop.

==================  ==============================================================================
module              concern
==================  ==============================================================================
``policies``        the policy contract, :class:`ReplayPolicy`, ``module:function`` loading
``openai_policy``   :class:`OpenAIChatPolicy` (any OpenAI-compatible chat endpoint; stdlib HTTP)
``layout``          folder layouts of candidate files (replay and ``kernelgym eval``)
``chat``            the episode as OpenAI-style chat messages
``records``         :class:`EpisodeRecord`: the row schema of JSONL and Parquet
``writers``         append-only fsync-ed JSONL, damaged-line handling, Parquet conversion
``collect``         :func:`collect`: policy x tasks x samples x turns → records
==================  ==============================================================================
"""

from kernelgym.data.collect import CollectStats, collect, run_episode
from kernelgym.data.openai_policy import EndpointError, OpenAIChatPolicy
from kernelgym.data.policies import ReplayPolicy, load_callable
from kernelgym.data.records import EpisodeRecord
from kernelgym.data.writers import DamagedLineWarning, JsonlWriter, jsonl_to_parquet, read_rows

__all__ = ["CollectStats", "DamagedLineWarning", "EndpointError", "EpisodeRecord", "JsonlWriter",
           "OpenAIChatPolicy", "ReplayPolicy", "collect", "jsonl_to_parquet", "load_callable", "read_rows",
           "run_episode"]
