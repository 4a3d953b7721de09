#!/usr/bin/env python3
"""Where slmcode still disagrees with our expectation on the peers' cases, each case put under
the README rule (or the missing repair) that decides it, with the counts: the per-case results
of score.py --details. The grouping is by input, written by hand after reading each case.

Usage: reasons.py results.json [--list]
"""

import json
import sys

a = json.load(open(sys.argv[1]))
fails=[r for r in a if not r['right']['slmcode'] and r['expect']!='refuse']
G = {
 "cut": "cut off: the input ends inside a value or after a key (our expectation `truncated`: slmcode takes 6 for prose, closes 2); or the peer completes it with a guess (`{\"foo\"` as `{\"foo\": null}`), where slmcode says truncated",
 "inner": "the inner-quote rule: a quote followed by a word, or by `,` and a bare word that runs into a quote, is content, so the string runs on (`{\"key\": \"v\"alue\"}`, `[\"hello,\"world\"]`, `[\"value1\" value2\", \"value3\"]`)",
 "split": "a string whose closing quote is missing before the closers is closed as written, not split at its commas or `+` (`[\"hello, world]` is one string)",
 "guess": "a structure or words guessed by the peer: stray words between members dropped (`COMMENT`), arrays after a member merged into it, a `[`/`{` inserted, a set `{'a', 'b'}` read as an array, JSON inside a string value parsed, keys with stray quotes (`{\"key:\"value\"}`)",
 "numberlike": "a number-like token in an array (`[0789]`, `[0.0.1,2]`, `[1, 2notanumber]`, `[e5],`): malformed by the documented rule (after a key it is kept as text)",
 "scalar": "a top-level string or regular expression with brackets in it (`\"the list [1, 2\"] more\"`, `/[a-z]_/`): no document",
 "lostquote": "a number that lost its opening quote is the string it was written as (`12345\",` is `\"12345\"`; json_repair reads the number)",
 "comment": "a line comment on the last line of an open document ends before the first closer in it, so the members after it are kept (`{\"key\": {\"key2\": \"value2\" // comment }, \"key3\": \"value3\" }` keeps `key3`; both peers drop it, while json_repair keeps it after a `#` comment)",
 "other": "a `{` left open in an array is closed, not dropped: `[{]` is `[{}]`, as `[{{]` is `[{}, {}]` (json_repair drops it)",
}
def group(r):
    i=r['input']
    if r['expect']=='truncated' or i in ('{"foo"','{0:a"0"'): return "cut"
    if i.startswith('"the ') or i.startswith('/['): return "scalar"
    if i in ('[1, 2notanumber]','[0.0.1,2]','[2 0.0.1 2]','[05e]','[0789]','[e],','[e5],','[-e5],'): return "numberlike"
    if i in ('["https://www.bible.com/,2]','["hello, world]','{a:"b,c,}','["b,c,]','["hello +]'): return "split"
    if i in ('["value1" value2", "value3"]','{"key": "v"alue"}','{"key": ""value"}','["hello,"world"]','["abc+/*comment*/"def"]','["abc/*comment*/+"def"]','["abc,/*comment*/"def"]','[\n"abc,\n"def"\n]','[\n"abc,  \n"def"\n]','{"b": "xxxxx" true}') or i.startswith('{"bad_one"') or i.startswith('{"key": "{\\'): return "inner"
    if i == '{ "words": abcdef", "numbers": 12345", "words2": ghijkl" }': return "lostquote"
    if i == '{ "key": { "key2": "value2" // comment }, "key3": "value3" }': return "comment"
    if i in ('[{]','[{{]'): return "other"
    return "guess"
from collections import defaultdict
groups=defaultdict(list)
for r in fails: groups[group(r)].append(r)
print("| reason | cases | of which json_repair's | of which jsonrepair's |")
print("|---|---|---|---|")
for k in ["cut","inner","split","guess","numberlike","scalar","lostquote","comment","other"]:
    rs=groups[k]
    print(f"| {G[k]} | {len(rs)} | {sum(1 for r in rs if r['from'].startswith('tests/'))} | {sum(1 for r in rs if r['from'].startswith('src/'))} |")
print(f"| **total** | **{len(fails)}** | | |")
if "--list" in sys.argv:
    for k in ["cut","inner","split","guess","numberlike","scalar","lostquote","comment","other"]:
        print(f"\n**{k}**: " + ", ".join("`"+json.dumps(r['input'])[1:-1].replace('`','\\`')[:70]+"`" for r in groups[k]))
