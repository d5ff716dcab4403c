import { describe, expect, it } from 'vitest';
import { GoStruct, GoTemplateError, renderGoTemplate, type GoValue } from './index.js';

const LIMITS = { steps: 100_000, outputBytes: 100_000, depth: 100 };
const BUILD = new GoStruct('drone.Build', [
  { name: 'Number', json: 'number', value: 7 },
  { name: 'After', json: 'after', value: 'abc' },
  { name: 'Params', json: 'params', omitEmpty: true, value: { k: 'v' } },
]);

function render(template: string, data: Record<string, GoValue> = {}, limits = LIMITS): string {
  return renderGoTemplate('t.yaml', template, { ...data, build: BUILD }, limits, () => 1_700_000_000_000);
}

function failure(template: string, data: Record<string, GoValue> = {}, limits = LIMITS): string {
  try {
    render(template, data, limits);
  } catch (error) {
    if (error instanceof GoTemplateError) return `${error.at.line}:${error.at.column}: ${error.message}`;
    throw error;
  }
  throw new Error('rendered without an error');
}

/*
 * Each expected output is what Go 1.19's text/template, with the functions of drone/funcmap at the
 * version Drone 2.x pins (2021-08-23), printed for the same template and data (integral numbers as
 * Go ints, as yaml.v2 decodes them; `.build` a struct), run offline when these cases were written.
 */
const GO_OUTPUTS: [string, string, Record<string, GoValue>, string][] = [
  ['field', 'name: {{ .input.name }}', { input: { name: 'x' } }, 'name: x'],
  ['missing', 'a{{ .input.nope }}b', { input: {} }, 'a<no value>b'],
  ['missing-deep', 'a{{ .input.nope.deeper }}b', { input: {} }, 'a<no value>b'],
  ['null', 'a{{ .input.n }}b', { input: { n: null } }, 'a<no value>b'],
  ['list', '{{ .input.l }}', { input: { l: ['a', 'b', 1, true, null] } }, '[a b 1 true <nil>]'],
  ['map', '{{ .input.m }}', { input: { m: { z: 1, a: 'x', m: [1, 2] } } }, 'map[a:x m:[1 2] z:1]'],
  [
    'float',
    '{{ .a }} {{ .b }} {{ .c }} {{ .d }} {{ .e }}',
    { a: 1.5, b: 1234567.5, c: 1e-5, d: 100000.25, e: -0.5 },
    '1.5 1.2345675e+06 1e-05 100000.25 -0.5',
  ],
  ['int', '{{ .a }} {{ .b }}', { a: 1000000, b: -42 }, '1000000 -42'],
  ['range-list', '{{ range .l }}- {{ . }}\n{{ end }}', { l: ['a', 'b'] }, '- a\n- b\n'],
  ['range-vars', '{{ range $i, $e := .l }}{{ $i }}={{ $e }};{{ end }}', { l: ['a', 'b'] }, '0=a;1=b;'],
  ['range-one-var', '{{ range $e := .l }}{{ $e }};{{ end }}', { l: ['a', 'b'] }, 'a;b;'],
  ['range-map', '{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}', { m: { b: 2, a: 1 } }, 'a=1;b=2;'],
  ['range-else', '{{ range .l }}x{{ else }}empty{{ end }}', { l: [] }, 'empty'],
  ['range-missing', '{{ range .nope }}x{{ else }}none{{ end }}', {}, 'none'],
  [
    'break',
    '{{ range .l }}{{ if eq . "b" }}{{ break }}{{ end }}{{ . }}{{ end }}',
    { l: ['a', 'b', 'c'] },
    'a',
  ],
  [
    'continue',
    '{{ range .l }}{{ if eq . "b" }}{{ continue }}{{ end }}{{ . }}{{ end }}',
    { l: ['a', 'b', 'c'] },
    'ac',
  ],
  ['if-else-if', '{{ if eq .x 1 }}one{{ else if eq .x 2 }}two{{ else }}many{{ end }}', { x: 2 }, 'two'],
  [
    'with',
    '{{ with .m }}{{ .k }}{{ else }}no{{ end }}|{{ with .none }}y{{ else }}n{{ end }}',
    { m: { k: 'v' } },
    'v|n',
  ],
  ['trim', 'a  \n  {{- .x -}}  \n  b', { x: 'X' }, 'aXb'],
  ['comment', 'a {{/* hi */}} b {{- /* trimmed */ -}} c', {}, 'a  bc'],
  ['vars', '{{ $x := .a }}{{ $x }}{{ $x = "new" }}{{ $x }}', { a: 'old' }, 'oldnew'],
  ['var-scope', '{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ $y := 3 }}{{ end }}{{ $x }}', {}, '2'],
  ['root', '{{ range .l }}{{ $.name }}{{ end }}', { l: [1, 2], name: 'n' }, 'nn'],
  ['pipe', '{{ .name | upper }} {{ "x" | printf "%s-%s" "a" }}', { name: 'abc' }, 'ABC a-x'],
  [
    'printf',
    '{{ printf "%d|%5s|%-5s|%q|%v|%x|%05d|%.2f|%t|%s" 42 "ab" "cd" "q\\"" .l 255 42 3.14159 true 5 }}',
    { l: [1, 2] },
    '42|   ab|cd   |"q\\""|[1 2]|ff|00042|3.14|true|%!s(int=5)',
  ],
  [
    'printf-missing',
    '{{ printf "%s %s" "a" }}|{{ printf "%s" "a" "b" }}',
    {},
    'a %!s(MISSING)|a%!(EXTRA string=b)',
  ],
  ['print', '{{ print 1 2 "a" "b" 3 }}|{{ println 1 "a" }}', {}, '1 2ab3|1 a\n'],
  [
    'len-index-slice',
    '{{ len .l }} {{ len .s }} {{ index .l 1 }} {{ index .m "k" }} {{ index .m "nope" }} {{ slice .l 1 }} {{ slice .s 1 3 }}',
    { l: ['a', 'b', 'c'], s: 'héllo', m: { k: 'v' } },
    '3 6 b v <no value> [b c] é',
  ],
  [
    'and-or-not',
    '{{ and 1 0 2 }} {{ and 1 2 }} {{ or 0 "" "x" }} {{ or 0 "" }} {{ not .x }}',
    { x: '' },
    '0 2 x  true',
  ],
  [
    'compare',
    '{{ eq 1 1 }} {{ eq "a" "b" "a" }} {{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }} {{ eq .nope "x" }}',
    {},
    'true true true true true true false false',
  ],
  [
    'html-js-url',
    '{{ html "<a href=\'x\'>&" }} {{ js "it\'s <b>" }} {{ urlquery "a b&c/d" }}',
    {},
    "&lt;a href=&#39;x&#39;&gt;&amp; it\\'s \\u003Cb\\u003E a+b%26c%2Fd",
  ],
  ['struct', '{{ .build.Number }} {{ .build.After }} {{ .build.Params }}', {}, '7 abc map[k:v]'],
  [
    'define',
    '{{ define "step" }}- name: {{ . }}\n{{ end }}{{ range .l }}{{ template "step" . }}{{ end }}',
    { l: ['a', 'b'] },
    '- name: a\n- name: b\n',
  ],
  ['block', '{{ block "b" .x }}[{{ . }}]{{ end }}', { x: 'v' }, '[v]'],
  [
    'nested-paren',
    '{{ (index .m "k").x }} {{ len (index .l 0) }}',
    { m: { k: { x: 'deep' } }, l: ['abcd'] },
    'deep 4',
  ],
  ['numbers', "{{ 0x1F }} {{ 1_000 }} {{ -3 }} {{ 'a' }} {{ 1.5e3 }} {{ 017 }}", {}, '31 1000 -3 97 1500 15'],
  ['strings', '{{ "a\\tb\\u00e9" }}{{ `raw\\n` }}', {}, 'a\tbéraw\\n'],
  ['multiline', '{{ if\n .x }}yes{{ end }}', { x: 1 }, 'yes'],
  ['dot', '{{ . }}', { a: 1 }, 'map[a:1 build:{7 abc map[k:v]}]'],
  ['with-var', '{{ with $v := .m }}{{ $v.k }}{{ end }}', { m: { k: 'v' } }, 'v'],
  ['trim-only-left', 'a \n{{- 3 }} \n', {}, 'a3 \n'],
  [
    'range-nested',
    '{{ range $a := .x }}{{ range $b := $.y }}{{ $a }}{{ $b }} {{ end }}{{ end }}',
    { x: [1, 2], y: ['a', 'b'] },
    '1a 1b 2a 2b ',
  ],
  ['ne-missing', '{{ if ne .input.x "y" }}differs{{ end }}', { input: {} }, 'differs'],
  ['upper-missing', '[{{ upper .nope }}]', {}, '[]'],
  ['pipe-missing', '[{{ .nope | upper }}]', {}, '[]'],
  [
    'printf-float',
    '{{ printf "%v %g %e %f" 1.5 0.000012 123456.789 2 }}',
    {},
    '1.5 1.2e-05 1.234568e+05 %!f(int=2)',
  ],
  ['sprint-mixed', '{{ print "a" 1 2 "b" }}', {}, 'a1 2b'],
  ['dollar-var', '{{ $ := 1 }}', {}, ''],
  [
    'strings',
    '{{ upper .s }}|{{ lower .s }}|{{ title .s }}|{{ trim "  x y  " }}|{{ chomp "a\\r\\n\\n" }}|{{ urlize " Hello World & co " }}',
    { s: 'Hello wörld' },
    'HELLO WÖRLD|hello wörld|HELLO WÖRLD|x y|a|Hello-World-%26-co',
  ],
  [
    'contains',
    '{{ contains .s "ll" }} {{ containsAny .s "xyz" }} {{ hasPrefix .s "He" }} {{ hasSuffix .s "d" }} {{ contains 123 2 }}',
    { s: 'Hello' },
    'true false true false true',
  ],
  ['replace', '{{ replace .s "l" "L" }}|{{ replace "ab" "" "-" }}', { s: 'hello' }, 'heLLo|-a-b-'],
  [
    'split',
    '{{ split .s "," }}|{{ splitn .s "," 2 }}|{{ split "abc" "" }}|{{ splitn .s "," 0 }}|{{ range split .s "," }}<{{ . }}>{{ end }}',
    { s: 'a,b,c' },
    '[a b c]|[a b,c]|[a b c]|[]|<a><b><c>',
  ],
  [
    'trims',
    '{{ trimLeft "xxaxx" "x" }}|{{ trimRight "xxaxx" "x" }}|{{ trimPrefix "prefix-a" "prefix-" }}|{{ trimSuffix "a.yaml" ".yaml" }}',
    {},
    'axx|xxa|a|a',
  ],
  ['pad', '{{ padLeft "a" "-" 3 }}|{{ padRight 5 "0" 2 }}', {}, '---a|500'],
  [
    'encode',
    '{{ base64Encode .s }}|{{ base64Decode "aGk=" }}|{{ md5 .s }}|{{ sha1 .s }}|{{ sha256 .s }}',
    { s: 'hi' },
    'aGk=|hi|49f68a5c8493ec2c0bf489821c21fc3b|c22b5f9178342609428d6f51b2c5af4c0bde6a42|8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4',
  ],
  [
    'html',
    '{{ htmlEscape "<a href=\'x\'>\\"&" }}|{{ htmlUnescape "&lt;b&gt; &amp; &#39;&#x41;&quot;" }}',
    {},
    '&lt;a href=&#39;x&#39;&gt;&#34;&amp;|<b> & \'A"',
  ],
  ['missing-any', '[{{ upper .nope }}][{{ .nope | lower }}]', {}, '[][]'],
  ['float-str', '{{ upper 1.5 }} {{ upper 1234567.5 }} {{ upper true }}', {}, '1.5 1234567.5 TRUE'],
];

describe('Go templates, as Drone renders YAML templates', () => {
  it.each(GO_OUTPUTS)('%s', (_name, template, data, expected) => {
    expect(render(template, data)).toBe(expected);
  });

  it('formats times with Go layouts, in UTC, and reads dates as drone/funcmap does', () => {
    expect(
      render(
        '{{ dateFormat "2006-01-02 15:04:05 Mon Jan _2 3PM .000 -0700 MST" 1700000000 }}|{{ dateFormat "Jan 2, 2006" "2021-03-04" }}|{{ (time "2021-03-04T05:06:07Z").Unix }}|{{ dateFormat "January 02 2006 15h04 .999" "2021-03-04T05:06:07.5Z" }}',
      ),
    ).toBe(
      '2023-11-14 22:13:20 Tue Nov 14 10PM .000 +0000 UTC|Mar 4, 2021|1614834367|March 04 2021 05h06 .5',
    );
    expect(render('{{ now.Unix }} {{ (now).Format "2006" }} {{ now.Year }}')).toBe('1700000000 2023 2023');
  });

  it('writes JSON as Go does: sorted keys, HTML characters escaped, structs by their JSON names', () => {
    expect(
      render('{{ jsonify .m }}|{{ jsonify .l }}|{{ jsonify "<&>" }}|{{ jsonify .build }}', {
        m: { b: 1, a: '<x>', c: [true, null, 1.5] },
        l: [1, 'a'],
      }),
    ).toBe(
      '{"a":"\\u003cx\\u003e","b":1,"c":[true,null,1.5]}|[1,"a"]|"\\u003c\\u0026\\u003e"|{"number":7,"after":"abc","params":{"k":"v"}}',
    );
  });
});

describe('Go template errors name the line and column, with Go’s message', () => {
  it.each([
    ['line1\n{{ foo }}', '2:4: function "foo" not defined'],
    ['{{ $x }}', '1:4: undefined variable "$x"'],
    ['{{ if .x }}a', '1:13: unexpected EOF'],
    ['a{{ end }}', '1:5: unexpected {{end}}'],
    ['{{ ) }}', '1:4: unexpected ")" in command'],
    ['{{ "abc }}', '1:4: unterminated quoted string'],
    ['{{ break }}', '1:4: {{break}} outside {{range}}'],
    ['{{ }}', '1:4: missing value for command'],
    ['{{ .a | 3 }}', '1:9: non executable command in pipeline stage 2'],
    ['{{ .a', '1:1: unclosed action'],
    ['{{/* open', '1:1: unclosed comment'],
    [
      '\n  {{ upper "a" "b" }}',
      '2:6: executing "t.yaml" at <upper "a" "b">: wrong number of args for upper: want 1 got 2',
    ],
    [
      '{{ eq 1 "a" }}',
      '1:4: executing "t.yaml" at <eq 1 "a">: error calling eq: incompatible types for comparison',
    ],
    [
      '{{ lt true false }}',
      '1:4: executing "t.yaml" at <lt true false>: error calling lt: invalid type for comparison',
    ],
    [
      '{{ index .l 5 }}',
      '1:4: executing "t.yaml" at <index .l 5>: error calling index: index out of range: 5',
    ],
    ['{{ .m.k 1 }}', '1:4: executing "t.yaml" at <.m.k 1>: k is not a method but has arguments'],
    ['{{ .n.x }}', '1:4: executing "t.yaml" at <.n.x>: nil pointer evaluating interface {}.x'],
    ['{{ "a" "b" }}', '1:4: executing "t.yaml" at <"a" "b">: can\'t give argument to non-function "a"'],
    ['{{ nil }}', '1:4: executing "t.yaml" at <nil>: nil is not a command'],
    ['{{ range .s }}x{{ end }}', '1:10: executing "t.yaml" at <.s>: range can\'t iterate over abc'],
    [
      '{{ .build.Nope }}',
      '1:4: executing "t.yaml" at <.build.Nope>: can\'t evaluate field Nope in type drone.Build',
    ],
    [
      '{{ upper .l }}',
      '1:4: executing "t.yaml" at <upper .l>: error calling upper: unable to cast [a] of type []interface {} to string',
    ],
    ['{{ padLeft "a" "b" "3" }}', '1:20: executing "t.yaml" at <"3">: expected integer; found "3"'],
    ['{{ hasPrefix "abc" 1 }}', '1:20: executing "t.yaml" at <1>: expected string; found 1'],
    ['{{ split "a" .nope }}', '1:14: executing "t.yaml" at <.nope>: invalid value; expected string'],
    [
      '{{ base64Decode "a*b" }}',
      '1:4: executing "t.yaml" at <base64Decode "a*b">: error calling base64Decode: illegal base64 data at input byte 1',
    ],
    [
      '{{ dateFormat "2006" "not a date" }}',
      '1:4: executing "t.yaml" at <dateFormat "2006" "not a date">: error calling dateFormat: unable to parse date: not a date',
    ],
    ['{{ template "nope" }}', '1:4: no such template "nope"'],
  ])('%j', (template, expected) => {
    expect(failure(template, { l: ['a'], s: 'abc', m: { k: 'v' }, n: null })).toBe(expected);
  });
});

describe('Go templates are bounded', () => {
  it('stops a template that calls itself at the depth limit', () => {
    expect(failure('{{ define "a" }}x{{ template "a" . }}{{ end }}{{ template "a" . }}')).toBe(
      '1:21: exceeded maximum template depth (100)',
    );
  });

  it('stops output that grows past the limit, and work past the step limit', () => {
    const list = Array.from({ length: 100 }, (_, i) => i);
    const nested = '{{ range .l }}{{ range $.l }}{{ range $.l }}xxxxxxxxxx{{ end }}{{ end }}{{ end }}';
    expect(failure(nested, { l: list })).toMatch(
      /^1:\d+: the output is larger than the limit of 100000 bytes \(a limit of templates\)$/,
    );
    const quiet = '{{ range .l }}{{ range $.l }}{{ range $.l }}{{ end }}{{ end }}{{ end }}';
    expect(failure(quiet, { l: list })).toMatch(
      /^1:\d+: stopped after 100000 steps \(a limit of templates\)$/,
    );
  });

  it('refuses a function result larger than the output limit before making it', () => {
    expect(failure('{{ padLeft "a" "0123456789" 1000000000 }}')).toBe(
      '1:4: executing "t.yaml" at <padLeft "a" "0123456789" 1000000000>: error calling padLeft: the result would be larger than the limit of 100000 bytes',
    );
    expect(failure('{{ printf "%999999999d" 1 }}', {}, { ...LIMITS, outputBytes: 1000 })).toMatch(
      /the result would be larger than the limit of 1000 bytes/,
    );
  });
});
