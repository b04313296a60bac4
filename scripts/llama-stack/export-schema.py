"""Exports, from the installed llama-stack package, the JSON Schemas the operator checks config.yaml against
(docs/llamastack.md, "Checked against the server"): the whole config (StackConfig) and the config of every
provider type of every API, as the server's own pydantic models describe them. Run by
scripts/llama-stack/export-schema.sh in the venv of scripts/llama-stack/setup.sh; the output is committed."""

import importlib
import json
import sys
from importlib.metadata import version

from llama_stack.core.datatypes import StackConfig
from llama_stack.core.distribution import get_provider_registry
from llama_stack_api import Api


def provider_schemas():
    out = {}
    for api, providers in get_provider_registry().items():
        for provider_type, spec in sorted(providers.items()):
            module, _, name = spec.config_class.rpartition(".")
            config_class = getattr(importlib.import_module(module), name)
            out.setdefault(api.value, {})[provider_type] = config_class.model_json_schema()
    return out


json.dump(
    {
        "llamaStackVersion": version("llama-stack"),
        "apis": sorted(a.value for a in Api),
        "config": StackConfig.model_json_schema(),
        "providers": provider_schemas(),
    },
    sys.stdout,
    indent=1,
    sort_keys=True,
)
sys.stdout.write("\n")
