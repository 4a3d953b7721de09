
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
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Repair a model''s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The contracts slmcode ships (list, show) and lint of a JSON Schema (check)')
            [CompletionResult]::new('roles', 'roles', [CompletionResultType]::ParameterValue, 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Read and edit settings: get, set, unset, list (with where each value comes from), path')
            [CompletionResult]::new('readiness', 'readiness', [CompletionResultType]::ParameterValue, 'Score the settings for a small local model (out of 100); --fix writes the recommended values')
            [CompletionResult]::new('assets', 'assets', [CompletionResultType]::ParameterValue, 'Write (or with --check, verify) the generated shell completions and man pages')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism''s probe outcome and the one selected. Exits non-zero when a check fails')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;validate' {
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'The contract to validate against, such as `plan` (`slmcode schema list` shows them all)')
            [CompletionResult]::new('--schema-file', '--schema-file', [CompletionResultType]::ParameterName, 'A JSON Schema file to validate against')
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
        'slmcode;repair' {
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'Validate (and coerce) against this contract (`slmcode schema list` shows them all); `none` repairs without a schema')
            [CompletionResult]::new('--schema-file', '--schema-file', [CompletionResultType]::ParameterName, 'Validate (and coerce) against the JSON Schema in this file')
            [CompletionResult]::new('--finish-reason', '--finish-reason', [CompletionResultType]::ParameterName, 'How the server said the answer ended; `length` means it was cut off, so the result is always "truncated"')
            [CompletionResult]::new('--record-stats', '--record-stats', [CompletionResultType]::ParameterName, 'Whether to count this run in the repair stats (overrides `record_stats`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Print the repaired JSON indented instead of compact')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
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
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'Print the prompt that describes the contract''s fields instead of its schema')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;schema;check' {
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Report this section''s problems without failing on them (repeatable)')
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
        'slmcode;schema;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the contracts: name, whether they are Strict, title, property counts')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a contract''s JSON Schema, or with `--prompt` the prompt that describes its fields')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer')
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
        'slmcode;schema;help;help' {
            break
        }
        'slmcode;roles' {
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Treat the ids as agents with these tools (comma-separated), as a harness would declare them')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'The contract the ids emit when their names do not lead to one')
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
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Timeout of one request, in seconds')
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
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Timeout of one request, in seconds')
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
        'slmcode;readiness' {
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Timeout of one request, in seconds')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Write the recommended values to config.toml (atomically; comments are kept) and show what changed. A model, an endpoint and where the key lives are left to you')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;assets' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'The repository root that holds `completions/` and `man/`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Compare the generated files with the ones on disk instead of writing them; exit 1 and name the stale ones when they differ')
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
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Timeout of one request, in seconds')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Probe again even when the capabilities cache has a result')
            [CompletionResult]::new('--no-probe', '--no-probe', [CompletionResultType]::ParameterName, 'Send no probe: use the cached result, or the provider''s prior guess')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;status' {
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Timeout of one request, in seconds')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Do not contact the endpoint at all (`.connection.reachable` is null)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;probe' {
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'The OpenAI-style base URL, such as http://127.0.0.1:8080/v1')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model id to request')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'The NAME of the environment variable holding the API key (never the key itself)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Timeout of one request, in seconds')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour messages on stderr')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Probe again even when the capabilities cache has a result for this endpoint and model')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout instead of human output. The shape of each command''s JSON is documented in the README and stays stable')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Say less on stderr: no notes or warnings, only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'slmcode;help' {
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Validate a JSON document strictly against a schema, reporting every error with its JSON pointer')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Repair a model''s answer into JSON (fences, prose, trailing commas, quotes, truncation detection, ...) and validate it, printing the value or a failure with its own exit code')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The contracts slmcode ships (list, show) and lint of a JSON Schema (check)')
            [CompletionResult]::new('roles', 'roles', [CompletionResultType]::ParameterValue, 'How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences. Language-specialised ids (`go-worker`) fold to their generic role')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Read and edit settings: get, set, unset, list (with where each value comes from), path')
            [CompletionResult]::new('readiness', 'readiness', [CompletionResultType]::ParameterValue, 'Score the settings for a small local model (out of 100); --fix writes the recommended values')
            [CompletionResult]::new('assets', 'assets', [CompletionResultType]::ParameterValue, 'Write (or with --check, verify) the generated shell completions and man pages')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check every step from the settings to a constrained answer: endpoint, key, model, reachability, each mechanism''s probe outcome and the one selected. Exits non-zero when a check fails')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the settings in brief and the connection: endpoint, reachability, the mechanism in use and where it came from. Never probes')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Probe the endpoint and print the capability matrix (a cached result unless --refresh)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'slmcode;help;validate' {
            break
        }
        'slmcode;help;repair' {
            break
        }
        'slmcode;help;schema' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the contracts: name, whether they are Strict, title, property counts')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a contract''s JSON Schema, or with `--prompt` the prompt that describes its fields')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready for OpenAI strict mode. Every problem is listed with its JSON pointer')
            break
        }
        'slmcode;help;schema;list' {
            break
        }
        'slmcode;help;schema;show' {
            break
        }
        'slmcode;help;schema;check' {
            break
        }
        'slmcode;help;roles' {
            break
        }
        'slmcode;help;config' {
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print a setting''s resolved value, normalised (an API key prints as <set>)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Write a setting to config.toml, after checking the value')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a setting from config.toml, so the environment or the default applies')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every setting, its value and where it came from')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print where config.toml is (it need not exist yet)')
            break
        }
        'slmcode;help;config;get' {
            break
        }
        'slmcode;help;config;set' {
            break
        }
        'slmcode;help;config;unset' {
            break
        }
        'slmcode;help;config;list' {
            break
        }
        'slmcode;help;config;path' {
            break
        }
        'slmcode;help;readiness' {
            break
        }
        'slmcode;help;assets' {
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
        'slmcode;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
