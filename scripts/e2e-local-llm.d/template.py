#!/usr/bin/env python3
"""Derive the llama-server chat template for the e2e run from the GGUF's own template.

Usage: template.py MODEL.gguf OUT.jinja

Owns: reading `tokenizer.chat_template` from the GGUF metadata (a minimal reader of the GGUF
v2/v3 header: only the key/value section is parsed, tensors are never touched) and the two
edits that make Qwen2.5-Coder's tool calls parseable by llama-server:

1. the system instruction asks for a bare JSON object `{"name": …, "arguments": …}` instead
   of one wrapped in <tool_call></tool_call> tags (the stock text even shows it as `{{"name"…}}`,
   doubled braces inside a string literal) (the Coder models leave the tags out, so with
   the stock template llama-server never sees a tool call);
2. earlier assistant tool calls are rendered as that same bare JSON, without the tags, so the
   conversation history agrees with the instruction.

Invariant: every edit names an exact anchor in the stock template; an anchor that is missing
(or present more than once) is an error (exit 2) — a silently unedited template would turn
every tool call into plain text and make the whole run measure nothing.
"""

import struct
import sys

KEY = "tokenizer.chat_template"

# (what the edit is for, anchor in the stock template, replacement)
EDITS = [
    (
        "system instruction: bare json object instead of <tool_call> tags",
        '\\n</tools>\\n\\nFor each function call, return a json object with function name and '
        'arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{{\\"name\\": '
        '<function-name>, \\"arguments\\": <args-json-object>}}\\n</tool_call><|im_end|>\\n',
        '\\n</tools>\\n\\nTo call a function, reply with only a json object with the function '
        'name and arguments, and nothing else:\\n{\\"name\\": <function-name>, \\"arguments\\": '
        '<args-json-object>}\\nIf no function is needed, answer normally in plain text.'
        '<|im_end|>\\n',
    ),
    (
        "history: opening <tool_call> tag of earlier assistant calls",
        "{{- '\\n<tool_call>\\n{\"name\": \"' }}",
        "{{- '\\n{\"name\": \"' }}",
    ),
    (
        "history: closing </tool_call> tag of earlier assistant calls",
        "{{- '}\\n</tool_call>' }}",
        "{{- '}' }}",
    ),
]

# GGUF value types (ggml/include/gguf.h): fixed-size scalars by type id.
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
           10: "<Q", 11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9


class GgufError(Exception):
    pass


def read_exact(f, n):
    b = f.read(n)
    if len(b) != n:
        raise GgufError("unexpected end of file in the GGUF header")
    return b


def read_u32(f):
    return struct.unpack("<I", read_exact(f, 4))[0]


def read_u64(f):
    return struct.unpack("<Q", read_exact(f, 8))[0]


def read_string(f):
    return read_exact(f, read_u64(f))


def skip_value(f, vtype):
    if vtype in SCALARS:
        f.seek(struct.calcsize(SCALARS[vtype]), 1)
    elif vtype == STRING:
        f.seek(read_u64(f), 1)
    elif vtype == ARRAY:
        etype, n = read_u32(f), read_u64(f)
        if etype in SCALARS:
            f.seek(struct.calcsize(SCALARS[etype]) * n, 1)
        else:
            for _ in range(n):
                skip_value(f, etype)
    else:
        raise GgufError(f"unknown GGUF value type {vtype}")


def chat_template(path):
    """The `tokenizer.chat_template` string of the GGUF at `path`."""
    with open(path, "rb") as f:
        if read_exact(f, 4) != b"GGUF":
            raise GgufError(f"{path} is not a GGUF file (bad magic)")
        version = read_u32(f)
        if version not in (2, 3):
            raise GgufError(f"{path}: GGUF version {version} is not supported (2 or 3)")
        _tensors, kv_count = read_u64(f), read_u64(f)
        for _ in range(kv_count):
            key = read_string(f).decode("utf-8")
            vtype = read_u32(f)
            if key == KEY:
                if vtype != STRING:
                    raise GgufError(f"{KEY} has type {vtype}, expected a string")
                return read_string(f).decode("utf-8")
            skip_value(f, vtype)
    raise GgufError(f"{path} has no {KEY} in its metadata")


def derive(template):
    for what, anchor, replacement in EDITS:
        n = template.count(anchor)
        if n != 1:
            raise GgufError(
                f"edit '{what}': anchor found {n} times (expected exactly once) in the GGUF's "
                f"chat template; the model's template changed — update EDITS in {__file__}.\n"
                f"anchor: {anchor}")
        template = template.replace(anchor, replacement)
    if "<tool_call>" in template.replace("<tool_call></tool_call>", ""):
        raise GgufError("the derived template still mentions <tool_call>; an edit is missing")
    return template


def main():
    if len(sys.argv) != 3:
        print("usage: template.py MODEL.gguf OUT.jinja", file=sys.stderr)
        return 2
    try:
        derived = derive(chat_template(sys.argv[1]))
    except (GgufError, OSError, UnicodeDecodeError) as e:
        print(f"e2e-local-llm template: {e}", file=sys.stderr)
        return 2
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(derived)
    return 0


if __name__ == "__main__":
    sys.exit(main())
