# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_slmcode_global_optspecs
    string join \n json q/quiet color= h/help V/version
end

function __fish_slmcode_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_slmcode_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_slmcode_using_subcommand
    set -l cmd (__fish_slmcode_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c slmcode -n "__fish_slmcode_needs_command" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_needs_command" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_needs_command" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_needs_command" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "repair" -d 'Repair a model\'s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "validate" -d 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "generate" -d 'Ask the endpoint for JSON that satisfies a contract or a schema file, through the structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and print the validated value; with --tools, ask for a tool call and print it'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "schema" -d 'The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact GBNF grammar (gbnf, match)'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "tools" -d 'Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema, GBNF, request fields), and extract a tool call a model wrote as text'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "roles" -d 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "doctor" -d 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism\'s probe outcome and the one selected. Exits non-zero when a check fails'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "status" -d 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "probe" -d 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "readiness" -d 'Score the settings for a small local model (out of 100); --fix writes the recommended values'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "config" -d 'Read and edit settings: get, set, unset, list (with where each value comes from), path'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "serve" -d 'An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or with tools and a tool_choice other than none, take the structured call path (validated JSON, tool calls validated against their parameters); any other is relayed unchanged. No tool_choice is auto, OpenAI\'s default: the model calls a tool or answers in text. Point OPENAI_BASE_URL at it'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "assets" -d 'Write (or with --check, verify) the generated shell completions and man pages'
complete -c slmcode -n "__fish_slmcode_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l schema -d 'Validate (and coerce) against this contract (`slmcode schema list` shows them all); `none` repairs without a schema' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l schema-file -d 'Validate (and coerce) against the JSON Schema in this file (`-` reads it from stdin)' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l finish-reason -d 'How the server said the answer ended; `length` means it was cut off, so the result is always "truncated"' -r -f -a "stop\t'The model ended its answer itself'
length\t'The server stopped the model at `max_tokens`'"
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l record-stats -d 'Whether to count this run in the repair stats (overrides `record_stats`)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -l pretty -d 'Print the repaired JSON indented instead of compact'
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand repair" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -l schema -d 'The contract to validate against, such as `plan` (`slmcode schema list` shows them all)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -l schema-file -d 'A JSON Schema file to validate against (`-` reads it from stdin)' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand validate" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l schema -d 'The contract to produce, such as `plan` (`slmcode schema list` shows them all)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l schema-file -d 'A JSON Schema file to produce an instance of' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l role -d 'The agent role asking (`planner`, `go-worker`): its stop sequences, and its contract when neither --schema nor --schema-file is given' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l tools -d 'Tools the model may call (an OpenAI `tools` array, a request body with `tools`, or Anthropic tools): the answer is the call(s), `{"tool_calls": [{"id", "name", "arguments"}], "content"}`' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l tool-choice -d 'With --tools: required (a call to any tool), auto (a call or an answer), none (no tools), or a tool\'s name (a call to it) [default: the file\'s tool_choice, else required without a schema and auto with one]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l prompt -d 'The request; without it, the request is read from stdin' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l system -d 'A system message, sent before the contract\'s instructions' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l max-tokens -d 'The first request\'s completion budget (a truncation re-ask doubles it, up to 8192)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l reask -d 'How many failure-matched re-asks may be sent (0: none)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l call-timeout -d 'The deadline of the whole call in seconds: every answer, retry and re-ask fits in it; when it passes, the call fails (exit 6, class canceled) with what had arrived' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l temperature -d 'Sampling temperature (0 to 2)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l anti-repetition -d 'When requests carry the engine\'s anti-repetition sampling: always, reask (only the re-ask after a loop) or off' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l thinking -d 'Whether a thinking model reasons before it answers: auto (its chat template decides), off or on (the engine\'s switch: chat_template_kwargs.enable_thinking on llama.cpp, vLLM and SGLang, reasoning_effort on Ollama)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l mechanism -d 'Force a mechanism for this call: json_schema, guided_json, gbnf_grammar, json_object or prompt_only. Nothing is probed and recorded demotions are ignored; a rejection still walks down to prompt_only (and is recorded)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l seed -d 'A sampling seed, for repeatable answers with a temperature above 0' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l text-fallback -d 'When every attempt failed, print the last answer\'s text as it came, the failure as a warning, and exit 8, instead of failing [default: the text_fallback setting, false]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l pretty -d 'Print the value indented'
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -l verbose -d 'End with one line on stderr: how often the answer was asked for again and why, and what degraded (`Retries: 1 (prose) · Degraded: json_schema_strict → json_object (400)`)'
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand generate" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -f -a "list" -d 'List the contracts: name, whether they are Strict, title, property counts'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -f -a "show" -d 'Print a contract\'s JSON Schema, or with `--prompt` the prompt that describes its fields'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -f -a "check" -d 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -f -a "gbnf" -d 'Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what it cannot express is reported on stderr'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -f -a "match" -d 'Check whether a document is in the language of a schema\'s grammar, and if not, where it leaves it'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and not __fish_seen_subcommand_from list show check gbnf match help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from list" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -l prompt -d 'Print the prompt that describes the contract\'s fields instead of its schema'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -l brief -d 'With --prompt: the brief prompt, sent under an exact constraint when `brief_instructions` is on (each field\'s meaning, without its type, bounds and enum list, and without the sentence asking for JSON only: the constraint enforces those)'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from check" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from check" -l allow -d 'Report this section\'s problems without failing on them (repeatable)' -r -f -a "subset\t''
strict\t''
grammar\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from check" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -l file -d 'A JSON Schema file instead of a contract (`-` reads it from stdin)' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -l whitespace -d 'The whitespace allowed between tokens: pretty (at most one line break and an indentation; the exact grammar documented) or compact (none: what `generate` sends under the default `grammar_whitespace`)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from gbnf" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from match" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from match" -l file -d 'A JSON Schema file instead of a contract (`-` reads it from stdin)' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from match" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from match" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from match" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from match" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the contracts: name, whether they are Strict, title, property counts'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print a contract\'s JSON Schema, or with `--prompt` the prompt that describes its fields'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "check" -d 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "gbnf" -d 'Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what it cannot express is reported on stderr'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "match" -d 'Check whether a document is in the language of a schema\'s grammar, and if not, where it leaves it'
complete -c slmcode -n "__fish_slmcode_using_subcommand schema; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -f -a "compile" -d 'Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the tools), its GBNF, or the request fields for the configured provider. The content address (key) goes to stderr, or into `--json`'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -f -a "extract" -d 'Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python call, ...), repair it and validate its arguments against the tool\'s schema; print the call'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and not __fish_seen_subcommand_from compile extract help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l tool-choice -d 'none, auto, required (or any), a tool\'s name, or a tool_choice JSON object [default: the file\'s tool_choice, else required]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l answer-schema -d 'Under auto, the JSON Schema of the plain answer (an object that requires a member other than `name` and `arguments`)' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l format -d 'What to print on stdout' -r -f -a "json-schema\t'The JSON Schema of the output (json_schema, guided_json, Ollama `format`)'
gbnf\t'The GBNF grammar derived from that schema (llama.cpp `grammar`)'
request\t'The request-body fields for the configured provider and mechanism'"
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l mechanism -d 'With --format request: plan for this mechanism (json_schema, guided_json, gbnf_grammar, json_object, prompt_only) instead of the one selected for the endpoint' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -l answer -d 'Under auto, a plain answer `{"answer": "<text>"}` instead of a call, as one more branch of a JSON constraint (in place of free text, which only a grammar can leave open)'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from compile" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -l finish-reason -d 'How the server said the answer ended; `length` means the last call is cut off' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -l all -d 'Keep every call in the text instead of only the first'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -l serial -d 'Keep only the first call (serial tools). The default'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from extract" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from help" -f -a "compile" -d 'Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the tools), its GBNF, or the request fields for the configured provider. The content address (key) goes to stderr, or into `--json`'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from help" -f -a "extract" -d 'Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python call, ...), repair it and validate its arguments against the tool\'s schema; print the call'
complete -c slmcode -n "__fish_slmcode_using_subcommand tools; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -l tools -d 'Treat the ids as agents with these tools (comma-separated), as a harness would declare them' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -l contract -d 'The contract the ids emit when their names do not lead to one' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand roles" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l refresh -d 'Probe again even when the capabilities cache has a result'
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -l no-probe -d 'Send no probe: use the cached result, or the provider\'s prior guess'
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -l offline -d 'Do not contact the endpoint at all (`.connection.reachable` is null)'
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand status" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -l refresh -d 'Probe again even when the capabilities cache has a result for this endpoint and model'
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand probe" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -l fix -d 'Write the recommended values to config.toml (atomically; comments are kept) and show what changed. A model, an endpoint and where the key lives are left to you'
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand readiness" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -f -a "get" -d 'Print a setting\'s resolved value, normalised (an API key prints as <set>)'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -f -a "set" -d 'Write a setting to config.toml, after checking the value'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -f -a "unset" -d 'Remove a setting from config.toml, so the environment or the default applies'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -f -a "list" -d 'Every setting, its value and where it came from'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -f -a "path" -d 'Print where config.toml is (it need not exist yet)'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and not __fish_seen_subcommand_from get set unset list path help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from get" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from set" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from set" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from set" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from unset" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from unset" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from unset" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from unset" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from unset" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from path" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from path" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from path" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "get" -d 'Print a setting\'s resolved value, normalised (an API key prints as <set>)'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Write a setting to config.toml, after checking the value'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "unset" -d 'Remove a setting from config.toml, so the environment or the default applies'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every setting, its value and where it came from'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print where config.toml is (it need not exist yet)'
complete -c slmcode -n "__fish_slmcode_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l listen -d 'Where to listen, such as 127.0.0.1:8090 (port 0 picks a free one) [default: the serve_listen setting, 127.0.0.1:8090]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l key-env -d 'The NAME of the environment variable holding the key clients must send as `Authorization: Bearer KEY` [default: the serve_key_env setting; unset: no key]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l max-connections -d 'How many requests are handled at once; one more is answered 503 [default: the serve_max_connections setting, 64]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l text-fallback -d 'When every attempt failed, answer 200 with the last answer\'s text as ordinary content, the failure in the `slmcode` field and the `x-slmcode-failure` header, instead of a 422 [default: the text_fallback setting, false]' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l provider -d 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l endpoint -d 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l model -d 'The model id to request' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l api-key-env -d 'The NAME of the environment variable holding the API key (never the key itself)' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l timeout -d 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds' -r
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -l log-content -d 'Put the content in the log lines: each request\'s last message and the call path\'s answer, 500 characters at most (never the key). Off by default: prompts and answers may hold what a log should not'
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand serve" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -l color -d 'When to colour messages on stderr' -r -f -a "auto\t'Colour when the stream is a terminal and `NO_COLOR` is not set'
always\t''
never\t''"
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -l dir -d 'The repository root that holds `completions/` and `man/`' -r -F
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -l json -d 'Print machine-readable JSON on stdout instead of human output. The shape of each command\'s JSON is documented in the README and stays stable'
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -s q -l quiet -d 'Say less on stderr: no notes or warnings, only errors'
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -l check -d 'Compare the generated files with the ones on disk instead of writing them; exit 1 and name the stale ones when they differ'
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slmcode -n "__fish_slmcode_using_subcommand assets" -s V -l version -d 'Print version'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "repair" -d 'Repair a model\'s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "validate" -d 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "generate" -d 'Ask the endpoint for JSON that satisfies a contract or a schema file, through the structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and print the validated value; with --tools, ask for a tool call and print it'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "schema" -d 'The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact GBNF grammar (gbnf, match)'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "tools" -d 'Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema, GBNF, request fields), and extract a tool call a model wrote as text'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "roles" -d 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "doctor" -d 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism\'s probe outcome and the one selected. Exits non-zero when a check fails'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "status" -d 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "probe" -d 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "readiness" -d 'Score the settings for a small local model (out of 100); --fix writes the recommended values'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "config" -d 'Read and edit settings: get, set, unset, list (with where each value comes from), path'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "serve" -d 'An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or with tools and a tool_choice other than none, take the structured call path (validated JSON, tool calls validated against their parameters); any other is relayed unchanged. No tool_choice is auto, OpenAI\'s default: the model calls a tool or answers in text. Point OPENAI_BASE_URL at it'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "assets" -d 'Write (or with --check, verify) the generated shell completions and man pages'
complete -c slmcode -n "__fish_slmcode_using_subcommand help; and not __fish_seen_subcommand_from repair validate generate schema tools roles doctor status probe readiness config serve assets help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
