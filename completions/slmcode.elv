
use builtin;
use str;

set edit:completion:arg-completer[slmcode] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'slmcode'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'slmcode'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand repair 'Repair a model''s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code'
            cand validate 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer'
            cand generate 'Ask the endpoint for JSON that satisfies a contract or a schema file, through the structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and print the validated value; with --tools, ask for a tool call and print it'
            cand schema 'The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact GBNF grammar (gbnf, match)'
            cand tools 'Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema, GBNF, request fields), and extract a tool call a model wrote as text'
            cand roles 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role'
            cand doctor 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism''s probe outcome and the one selected. Exits non-zero when a check fails'
            cand status 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes'
            cand probe 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)'
            cand readiness 'Score the settings for a small local model (out of 100); --fix writes the recommended values'
            cand config 'Read and edit settings: get, set, unset, list (with where each value comes from), path'
            cand serve 'An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or with tools and a tool_choice other than none, take the structured call path (validated JSON, tool calls validated against their parameters); any other is relayed unchanged. No tool_choice is auto, OpenAI''s default: the model calls a tool or answers in text. Point OPENAI_BASE_URL at it'
            cand assets 'Write (or with --check, verify) the generated shell completions and man pages'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;repair'= {
            cand --color 'When to colour messages on stderr'
            cand --schema 'Validate (and coerce) against this contract (`slmcode schema list` shows them all); `none` repairs without a schema'
            cand --schema-file 'Validate (and coerce) against the JSON Schema in this file (`-` reads it from stdin)'
            cand --finish-reason 'How the server said the answer ended; `length` means it was cut off, so the result is always "truncated"'
            cand --record-stats 'Whether to count this run in the repair stats (overrides `record_stats`)'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --pretty 'Print the repaired JSON indented instead of compact'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;validate'= {
            cand --color 'When to colour messages on stderr'
            cand --schema 'The contract to validate against, such as `plan` (`slmcode schema list` shows them all)'
            cand --schema-file 'A JSON Schema file to validate against (`-` reads it from stdin)'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;generate'= {
            cand --color 'When to colour messages on stderr'
            cand --schema 'The contract to produce, such as `plan` (`slmcode schema list` shows them all)'
            cand --schema-file 'A JSON Schema file to produce an instance of'
            cand --role 'The agent role asking (`planner`, `go-worker`): its stop sequences, and its contract when neither --schema nor --schema-file is given'
            cand --tools 'Tools the model may call (an OpenAI `tools` array, a request body with `tools`, or Anthropic tools): the answer is the call(s), `{"tool_calls": [{"id", "name", "arguments"}], "content"}`'
            cand --tool-choice 'With --tools: required (a call to any tool), auto (a call or an answer), none (no tools), or a tool''s name (a call to it) [default: the file''s tool_choice, else required without a schema and auto with one]'
            cand --prompt 'The request; without it, the request is read from stdin'
            cand --system 'A system message, sent before the contract''s instructions'
            cand --max-tokens 'The first request''s completion budget (a truncation re-ask doubles it, up to 8192)'
            cand --reask 'How many failure-matched re-asks may be sent (0: none)'
            cand --call-timeout 'The deadline of the whole call in seconds: every answer, retry and re-ask fits in it; when it passes, the call fails (exit 6, class canceled) with what had arrived'
            cand --temperature 'Sampling temperature (0 to 2)'
            cand --anti-repetition 'When requests carry the engine''s anti-repetition sampling: always, reask (only the re-ask after a loop) or off'
            cand --thinking 'Whether a thinking model reasons before it answers: auto (its chat template decides), off or on (the engine''s switch: chat_template_kwargs.enable_thinking on llama.cpp, vLLM and SGLang, reasoning_effort on Ollama)'
            cand --mechanism 'Force a mechanism for this call: json_schema, guided_json, gbnf_grammar, json_object or prompt_only. Nothing is probed and recorded demotions are ignored; a rejection still walks down to prompt_only (and is recorded)'
            cand --seed 'A sampling seed, for repeatable answers with a temperature above 0'
            cand --text-fallback 'When every attempt failed, print the last answer''s text as it came, the failure as a warning, and exit 8, instead of failing [default: the text_fallback setting, false]'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --pretty 'Print the value indented'
            cand --verbose 'End with one line on stderr: how often the answer was asked for again and why, and what degraded (`Retries: 1 (prose) · Degraded: json_schema_strict → json_object (400)`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;schema'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List the contracts: name, whether they are Strict, title, property counts'
            cand show 'Print a contract''s JSON Schema, or with `--prompt` the prompt that describes its fields'
            cand check 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer'
            cand gbnf 'Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what it cannot express is reported on stderr'
            cand match 'Check whether a document is in the language of a schema''s grammar, and if not, where it leaves it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;schema;list'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;schema;show'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --prompt 'Print the prompt that describes the contract''s fields instead of its schema'
            cand --brief 'With --prompt: the brief prompt, sent under an exact constraint when `brief_instructions` is on (each field''s meaning, without its type, bounds and enum list, and without the sentence asking for JSON only: the constraint enforces those)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;schema;check'= {
            cand --color 'When to colour messages on stderr'
            cand --allow 'Report this section''s problems without failing on them (repeatable)'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;schema;gbnf'= {
            cand --color 'When to colour messages on stderr'
            cand --file 'A JSON Schema file instead of a contract (`-` reads it from stdin)'
            cand --whitespace 'The whitespace allowed between tokens: pretty (at most one line break and an indentation; the exact grammar documented) or compact (none: what `generate` sends under the default `grammar_whitespace`)'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;schema;match'= {
            cand --color 'When to colour messages on stderr'
            cand --file 'A JSON Schema file instead of a contract (`-` reads it from stdin)'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;schema;help'= {
            cand list 'List the contracts: name, whether they are Strict, title, property counts'
            cand show 'Print a contract''s JSON Schema, or with `--prompt` the prompt that describes its fields'
            cand check 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer'
            cand gbnf 'Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what it cannot express is reported on stderr'
            cand match 'Check whether a document is in the language of a schema''s grammar, and if not, where it leaves it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;schema;help;list'= {
        }
        &'slmcode;schema;help;show'= {
        }
        &'slmcode;schema;help;check'= {
        }
        &'slmcode;schema;help;gbnf'= {
        }
        &'slmcode;schema;help;match'= {
        }
        &'slmcode;schema;help;help'= {
        }
        &'slmcode;tools'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand compile 'Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the tools), its GBNF, or the request fields for the configured provider. The content address (key) goes to stderr, or into `--json`'
            cand extract 'Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python call, ...), repair it and validate its arguments against the tool''s schema; print the call'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;tools;compile'= {
            cand --color 'When to colour messages on stderr'
            cand --tool-choice 'none, auto, required (or any), a tool''s name, or a tool_choice JSON object [default: the file''s tool_choice, else required]'
            cand --answer-schema 'Under auto, the JSON Schema of the plain answer (an object that requires a member other than `name` and `arguments`)'
            cand --format 'What to print on stdout'
            cand --mechanism 'With --format request: plan for this mechanism (json_schema, guided_json, gbnf_grammar, json_object, prompt_only) instead of the one selected for the endpoint'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --answer 'Under auto, a plain answer `{"answer": "<text>"}` instead of a call, as one more branch of a JSON constraint (in place of free text, which only a grammar can leave open)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;tools;extract'= {
            cand --color 'When to colour messages on stderr'
            cand --finish-reason 'How the server said the answer ended; `length` means the last call is cut off'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --all 'Keep every call in the text instead of only the first'
            cand --serial 'Keep only the first call (serial tools). The default'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;tools;help'= {
            cand compile 'Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the tools), its GBNF, or the request fields for the configured provider. The content address (key) goes to stderr, or into `--json`'
            cand extract 'Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python call, ...), repair it and validate its arguments against the tool''s schema; print the call'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;tools;help;compile'= {
        }
        &'slmcode;tools;help;extract'= {
        }
        &'slmcode;tools;help;help'= {
        }
        &'slmcode;roles'= {
            cand --color 'When to colour messages on stderr'
            cand --tools 'Treat the ids as agents with these tools (comma-separated), as a harness would declare them'
            cand --contract 'The contract the ids emit when their names do not lead to one'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;doctor'= {
            cand --color 'When to colour messages on stderr'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --refresh 'Probe again even when the capabilities cache has a result'
            cand --no-probe 'Send no probe: use the cached result, or the provider''s prior guess'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;status'= {
            cand --color 'When to colour messages on stderr'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --offline 'Do not contact the endpoint at all (`.connection.reachable` is null)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;probe'= {
            cand --color 'When to colour messages on stderr'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --refresh 'Probe again even when the capabilities cache has a result for this endpoint and model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;readiness'= {
            cand --color 'When to colour messages on stderr'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --fix 'Write the recommended values to config.toml (atomically; comments are kept) and show what changed. A model, an endpoint and where the key lives are left to you'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;config'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand get 'Print a setting''s resolved value, normalised (an API key prints as <set>)'
            cand set 'Write a setting to config.toml, after checking the value'
            cand unset 'Remove a setting from config.toml, so the environment or the default applies'
            cand list 'Every setting, its value and where it came from'
            cand path 'Print where config.toml is (it need not exist yet)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;config;get'= {
            cand --color 'When to colour messages on stderr'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;config;set'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;config;unset'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;config;list'= {
            cand --color 'When to colour messages on stderr'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;config;path'= {
            cand --color 'When to colour messages on stderr'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;config;help'= {
            cand get 'Print a setting''s resolved value, normalised (an API key prints as <set>)'
            cand set 'Write a setting to config.toml, after checking the value'
            cand unset 'Remove a setting from config.toml, so the environment or the default applies'
            cand list 'Every setting, its value and where it came from'
            cand path 'Print where config.toml is (it need not exist yet)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;config;help;get'= {
        }
        &'slmcode;config;help;set'= {
        }
        &'slmcode;config;help;unset'= {
        }
        &'slmcode;config;help;list'= {
        }
        &'slmcode;config;help;path'= {
        }
        &'slmcode;config;help;help'= {
        }
        &'slmcode;serve'= {
            cand --color 'When to colour messages on stderr'
            cand --listen 'Where to listen, such as 127.0.0.1:8090 (port 0 picks a free one) [default: the serve_listen setting, 127.0.0.1:8090]'
            cand --key-env 'The NAME of the environment variable holding the key clients must send as `Authorization: Bearer KEY` [default: the serve_key_env setting; unset: no key]'
            cand --max-connections 'How many requests are handled at once; one more is answered 503 [default: the serve_max_connections setting, 64]'
            cand --text-fallback 'When every attempt failed, answer 200 with the last answer''s text as ordinary content, the failure in the `slmcode` field and the `x-slmcode-failure` header, instead of a 422 [default: the text_fallback setting, false]'
            cand --provider 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible'
            cand --endpoint 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1'
            cand --model 'The model id to request'
            cand --api-key-env 'The NAME of the environment variable holding the API key (never the key itself)'
            cand --timeout 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --log-content 'Put the content in the log lines: each request''s last message and the call path''s answer, 500 characters at most (never the key). Off by default: prompts and answers may hold what a log should not'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;assets'= {
            cand --color 'When to colour messages on stderr'
            cand --dir 'The repository root that holds `completions/` and `man/`'
            cand --json 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable'
            cand -q 'Say less on stderr: no notes or warnings, only errors'
            cand --quiet 'Say less on stderr: no notes or warnings, only errors'
            cand --check 'Compare the generated files with the ones on disk instead of writing them; exit 1 and name the stale ones when they differ'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'slmcode;help'= {
            cand repair 'Repair a model''s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code'
            cand validate 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer'
            cand generate 'Ask the endpoint for JSON that satisfies a contract or a schema file, through the structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and print the validated value; with --tools, ask for a tool call and print it'
            cand schema 'The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact GBNF grammar (gbnf, match)'
            cand tools 'Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema, GBNF, request fields), and extract a tool call a model wrote as text'
            cand roles 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role'
            cand doctor 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism''s probe outcome and the one selected. Exits non-zero when a check fails'
            cand status 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes'
            cand probe 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)'
            cand readiness 'Score the settings for a small local model (out of 100); --fix writes the recommended values'
            cand config 'Read and edit settings: get, set, unset, list (with where each value comes from), path'
            cand serve 'An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or with tools and a tool_choice other than none, take the structured call path (validated JSON, tool calls validated against their parameters); any other is relayed unchanged. No tool_choice is auto, OpenAI''s default: the model calls a tool or answers in text. Point OPENAI_BASE_URL at it'
            cand assets 'Write (or with --check, verify) the generated shell completions and man pages'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'slmcode;help;repair'= {
        }
        &'slmcode;help;validate'= {
        }
        &'slmcode;help;generate'= {
        }
        &'slmcode;help;schema'= {
        }
        &'slmcode;help;tools'= {
        }
        &'slmcode;help;roles'= {
        }
        &'slmcode;help;doctor'= {
        }
        &'slmcode;help;status'= {
        }
        &'slmcode;help;probe'= {
        }
        &'slmcode;help;readiness'= {
        }
        &'slmcode;help;config'= {
        }
        &'slmcode;help;serve'= {
        }
        &'slmcode;help;assets'= {
        }
        &'slmcode;help;help'= {
        }
    ]
    $completions[$command]
}
