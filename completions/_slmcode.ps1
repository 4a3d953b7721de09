
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'slmcode' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'slmcode'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'slmcode' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Repair a model''s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Ask the endpoint for JSON that satisfies a contract or a schema file, through the structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and print the validated value; with --tools, ask for a tool call and print it')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact GBNF grammar (gbnf, match)')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema, GBNF, request fields), and extract a tool call a model wrote as text')
            [CompletionResult]::new('roles', 'roles', [CompletionResultType]::ParameterValue, 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism''s probe outcome and the one selected. Exits non-zero when a check fails')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)')
            [CompletionResult]::new('readiness', 'readiness', [CompletionResultType]::ParameterValue, 'Score the settings for a small local model (out of 100); --fix writes the recommended values')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Read and edit settings: get, set, unset, list (with where each value comes from), path')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or with tools and a tool_choice other than none, take the structured call path (validated JSON, tool calls validated against their parameters); any other is relayed unchanged. No tool_choice is auto, OpenAI''s default: the model calls a tool or answers in text. Point OPENAI_BASE_URL at it')
            [CompletionResult]::new('assets', 'assets', [CompletionResultType]::ParameterValue, 'Write (or with --check, verify) the generated shell completions and man pages')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;repair' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'Validate (and coerce) against this contract (`slmcode schema list` shows them all); `none` repairs without a schema')
            [CompletionResult]::new('--schema-file', '--schema-file', [CompletionResultType]::ParameterName, 'Validate (and coerce) against the JSON Schema in this file (`-` reads it from stdin)')
            [CompletionResult]::new('--finish-reason', '--finish-reason', [CompletionResultType]::ParameterName, 'How the server said the answer ended; `length` means it was cut off, so the result is always "truncated"')
            [CompletionResult]::new('--record-stats', '--record-stats', [CompletionResultType]::ParameterName, 'Whether to count this run in the repair stats (overrides `record_stats`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Print the repaired JSON indented instead of compact')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;validate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'The contract to validate against, such as `plan` (`slmcode schema list` shows them all)')
            [CompletionResult]::new('--schema-file', '--schema-file', [CompletionResultType]::ParameterName, 'A JSON Schema file to validate against (`-` reads it from stdin)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;generate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'The contract to produce, such as `plan` (`slmcode schema list` shows them all)')
            [CompletionResult]::new('--schema-file', '--schema-file', [CompletionResultType]::ParameterName, 'A JSON Schema file to produce an instance of')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'The agent role asking (`planner`, `go-worker`): its stop sequences, and its contract when neither --schema nor --schema-file is given')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Tools the model may call (an OpenAI `tools` array, a request body with `tools`, or Anthropic tools): the answer is the call(s), `{"tool_calls": [{"id", "name", "arguments"}], "content"}`')
            [CompletionResult]::new('--tool-choice', '--tool-choice', [CompletionResultType]::ParameterName, 'With --tools: required (a call to any tool), auto (a call or an answer), none (no tools), or a tool''s name (a call to it) [default: the file''s tool_choice, else required without a schema and auto with one]')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'The request; without it, the request is read from stdin')
            [CompletionResult]::new('--system', '--system', [CompletionResultType]::ParameterName, 'A system message, sent before the contract''s instructions')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'The first request''s completion budget (a truncation re-ask doubles it, up to 8192)')
            [CompletionResult]::new('--reask', '--reask', [CompletionResultType]::ParameterName, 'How many failure-matched re-asks may be sent (0: none)')
            [CompletionResult]::new('--call-timeout', '--call-timeout', [CompletionResultType]::ParameterName, 'The deadline of the whole call in seconds: every answer, retry and re-ask fits in it; when it passes, the call fails (exit 6, class canceled) with what had arrived')
            [CompletionResult]::new('--temperature', '--temperature', [CompletionResultType]::ParameterName, 'Sampling temperature (0 to 2)')
            [CompletionResult]::new('--anti-repetition', '--anti-repetition', [CompletionResultType]::ParameterName, 'When requests carry the engine''s anti-repetition sampling: always, reask (only the re-ask after a loop) or off')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Whether a thinking model reasons before it answers: auto (its chat template decides), off or on (the engine''s switch: chat_template_kwargs.enable_thinking on llama.cpp, vLLM and SGLang, reasoning_effort on Ollama)')
            [CompletionResult]::new('--mechanism', '--mechanism', [CompletionResultType]::ParameterName, 'Force a mechanism for this call: json_schema, guided_json, gbnf_grammar, json_object or prompt_only. Nothing is probed and recorded demotions are ignored; a rejection still walks down to prompt_only (and is recorded)')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'A sampling seed, for repeatable answers with a temperature above 0')
            [CompletionResult]::new('--text-fallback', '--text-fallback', [CompletionResultType]::ParameterName, 'When every attempt failed, print the last answer''s text as it came, the failure as a warning, and exit 8, instead of failing [default: the text_fallback setting, false]')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Print the value indented')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'End with one line on stderr: how often the answer was asked for again and why, and what degraded (`Retries: 1 (prose) · Degraded: json_schema_strict → json_object (400)`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the contracts: name, whether they are Strict, title, property counts')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a contract''s JSON Schema, or with `--prompt` the prompt that describes its fields')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer')
            [CompletionResult]::new('gbnf', 'gbnf', [CompletionResultType]::ParameterValue, 'Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what it cannot express is reported on stderr')
            [CompletionResult]::new('match', 'match', [CompletionResultType]::ParameterValue, 'Check whether a document is in the language of a schema''s grammar, and if not, where it leaves it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;schema;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema;show' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'Print the prompt that describes the contract''s fields instead of its schema')
            [CompletionResult]::new('--brief', '--brief', [CompletionResultType]::ParameterName, 'With --prompt: the brief prompt, sent under an exact constraint when `brief_instructions` is on (each field''s meaning, without its type, bounds and enum list, and without the sentence asking for JSON only: the constraint enforces those)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema;check' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Report this section''s problems without failing on them (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema;gbnf' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'A JSON Schema file instead of a contract (`-` reads it from stdin)')
            [CompletionResult]::new('--whitespace', '--whitespace', [CompletionResultType]::ParameterName, 'The whitespace allowed between tokens: pretty (at most one line break and an indentation; the exact grammar documented) or compact (none: what `generate` sends under the default `grammar_whitespace`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema;match' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'A JSON Schema file instead of a contract (`-` reads it from stdin)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the contracts: name, whether they are Strict, title, property counts')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a contract''s JSON Schema, or with `--prompt` the prompt that describes its fields')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer')
            [CompletionResult]::new('gbnf', 'gbnf', [CompletionResultType]::ParameterValue, 'Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what it cannot express is reported on stderr')
            [CompletionResult]::new('match', 'match', [CompletionResultType]::ParameterValue, 'Check whether a document is in the language of a schema''s grammar, and if not, where it leaves it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;schema;help;list' {
            break
        }
        'slmcode;schema;help;show' {
            break
        }
        'slmcode;schema;help;check' {
            break
        }
        'slmcode;schema;help;gbnf' {
            break
        }
        'slmcode;schema;help;match' {
            break
        }
        'slmcode;schema;help;help' {
            break
        }
        'slmcode;tools' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('compile', 'compile', [CompletionResultType]::ParameterValue, 'Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the tools), its GBNF, or the request fields for the configured provider. The content address (key) goes to stderr, or into `--json`')
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python call, ...), repair it and validate its arguments against the tool''s schema; print the call')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;tools;compile' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--tool-choice', '--tool-choice', [CompletionResultType]::ParameterName, 'none, auto, required (or any), a tool''s name, or a tool_choice JSON object [default: the file''s tool_choice, else required]')
            [CompletionResult]::new('--answer-schema', '--answer-schema', [CompletionResultType]::ParameterName, 'Under auto, the JSON Schema of the plain answer (an object that requires a member other than `name` and `arguments`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'What to print on stdout')
            [CompletionResult]::new('--mechanism', '--mechanism', [CompletionResultType]::ParameterName, 'With --format request: plan for this mechanism (json_schema, guided_json, gbnf_grammar, json_object, prompt_only) instead of the one selected for the endpoint')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--answer', '--answer', [CompletionResultType]::ParameterName, 'Under auto, a plain answer `{"answer": "<text>"}` instead of a call, as one more branch of a JSON constraint (in place of free text, which only a grammar can leave open)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;tools;extract' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--finish-reason', '--finish-reason', [CompletionResultType]::ParameterName, 'How the server said the answer ended; `length` means the last call is cut off')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Keep every call in the text instead of only the first')
            [CompletionResult]::new('--serial', '--serial', [CompletionResultType]::ParameterName, 'Keep only the first call (serial tools). The default')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;tools;help' {
            [CompletionResult]::new('compile', 'compile', [CompletionResultType]::ParameterValue, 'Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the tools), its GBNF, or the request fields for the configured provider. The content address (key) goes to stderr, or into `--json`')
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python call, ...), repair it and validate its arguments against the tool''s schema; print the call')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;tools;help;compile' {
            break
        }
        'slmcode;tools;help;extract' {
            break
        }
        'slmcode;tools;help;help' {
            break
        }
        'slmcode;roles' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Treat the ids as agents with these tools (comma-separated), as a harness would declare them')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'The contract the ids emit when their names do not lead to one')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;doctor' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Probe again even when the capabilities cache has a result')
            [CompletionResult]::new('--no-probe', '--no-probe', [CompletionResultType]::ParameterName, 'Send no probe: use the cached result, or the provider''s prior guess')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;status' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Do not contact the endpoint at all (`.connection.reachable` is null)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;probe' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Probe again even when the capabilities cache has a result for this endpoint and model')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;readiness' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Write the recommended values to config.toml (atomically; comments are kept) and show what changed. A model, an endpoint and where the key lives are left to you')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;config' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print a setting''s resolved value, normalised (an API key prints as <set>)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Write a setting to config.toml, after checking the value')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a setting from config.toml, so the environment or the default applies')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every setting, its value and where it came from')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print where config.toml is (it need not exist yet)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;config;get' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;config;set' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;config;unset' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;config;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;config;path' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;config;help' {
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print a setting''s resolved value, normalised (an API key prints as <set>)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Write a setting to config.toml, after checking the value')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a setting from config.toml, so the environment or the default applies')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every setting, its value and where it came from')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print where config.toml is (it need not exist yet)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;config;help;get' {
            break
        }
        'slmcode;config;help;set' {
            break
        }
        'slmcode;config;help;unset' {
            break
        }
        'slmcode;config;help;list' {
            break
        }
        'slmcode;config;help;path' {
            break
        }
        'slmcode;config;help;help' {
            break
        }
        'slmcode;serve' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Where to listen, such as 127.0.0.1:8090 (port 0 picks a free one) [default: the serve_listen setting, 127.0.0.1:8090]')
            [CompletionResult]::new('--key-env', '--key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the key clients must send as `Authorization: Bearer KEY` [default: the serve_key_env setting; unset: no key]')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'How many requests are handled at once; one more is answered 503 [default: the serve_max_connections setting, 64]')
            [CompletionResult]::new('--text-fallback', '--text-fallback', [CompletionResultType]::ParameterName, 'When every attempt failed, answer 200 with the last answer''s text as ordinary content, the failure in the `slmcode` field and the `x-slmcode-failure` header, instead of a 422 [default: the text_fallback setting, false]')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest wait for the next piece of an answer (the idle time between streamed chunks), in seconds')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--log-content', '--log-content', [CompletionResultType]::ParameterName, 'Put the content in the log lines: each request''s last message and the call path''s answer, 500 characters at most (never the key). Off by default: prompts and answers may hold what a log should not')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;assets' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The repository root that holds `completions/` and `man/`')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Compare the generated files with the ones on disk instead of writing them; exit 1 and name the stale ones when they differ')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;help' {
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Repair a model''s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Ask the endpoint for JSON that satisfies a contract or a schema file, through the structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and print the validated value; with --tools, ask for a tool call and print it')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact GBNF grammar (gbnf, match)')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema, GBNF, request fields), and extract a tool call a model wrote as text')
            [CompletionResult]::new('roles', 'roles', [CompletionResultType]::ParameterValue, 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism''s probe outcome and the one selected. Exits non-zero when a check fails')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)')
            [CompletionResult]::new('readiness', 'readiness', [CompletionResultType]::ParameterValue, 'Score the settings for a small local model (out of 100); --fix writes the recommended values')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Read and edit settings: get, set, unset, list (with where each value comes from), path')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or with tools and a tool_choice other than none, take the structured call path (validated JSON, tool calls validated against their parameters); any other is relayed unchanged. No tool_choice is auto, OpenAI''s default: the model calls a tool or answers in text. Point OPENAI_BASE_URL at it')
            [CompletionResult]::new('assets', 'assets', [CompletionResultType]::ParameterValue, 'Write (or with --check, verify) the generated shell completions and man pages')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;help;repair' {
            break
        }
        'slmcode;help;validate' {
            break
        }
        'slmcode;help;generate' {
            break
        }
        'slmcode;help;schema' {
            break
        }
        'slmcode;help;tools' {
            break
        }
        'slmcode;help;roles' {
            break
        }
        'slmcode;help;doctor' {
            break
        }
        'slmcode;help;status' {
            break
        }
        'slmcode;help;probe' {
            break
        }
        'slmcode;help;readiness' {
            break
        }
        'slmcode;help;config' {
            break
        }
        'slmcode;help;serve' {
            break
        }
        'slmcode;help;assets' {
            break
        }
        'slmcode;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
