import { describe, expect, it } from 'vitest';
import { fixture } from './fixtures.test-helper.js';
import { MAX_REPORT_BYTES } from './limits.js';
import { parseReport } from './parse-report.js';

describe('parseReport', () => {
  it.each([
    ['vitest-junit.xml', 'junit'],
    ['pytest-junit.xml', 'junit'],
    ['go-test.jsonl', 'go-test-json'],
    ['node-test.tap', 'tap'],
  ])('detects %s as %s', (name, format) => {
    expect(parseReport(fixture(name))).toMatchObject({ format });
  });

  it('accepts bytes and honours a hint', () => {
    const bytes = new TextEncoder().encode(fixture('jest-junit.xml'));
    expect(parseReport(bytes, 'junit')).toMatchObject({ format: 'junit' });
    expect(parseReport('<testsuite/>', 'tap')).toEqual({
      error: 'TAP: expected a plan (1..N) or ok / not ok lines; found none',
    });
  });

  it('refuses billion laughs with a clear error, never throwing', () => {
    const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><lolz>&lol;</lolz>';
    expect(parseReport(laughs)).toEqual({
      error:
        'XML line 1, column 22: DOCTYPE not allowed: test reports need no DTD, and DTD entities can be abused',
    });
  });

  it('refuses input over the size cap before reading it', () => {
    const started = performance.now();
    const huge = '<testsuite>' + ' '.repeat(MAX_REPORT_BYTES) + '</testsuite>';
    expect(parseReport(huge)).toEqual({ error: 'report is 20.0 MiB, over the 20 MiB limit' });
    expect(parseReport(new Uint8Array(50 * 1024 * 1024))).toEqual({
      error: 'report is 50.0 MiB, over the 20 MiB limit',
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses invalid UTF-8, binary junk and unknown content', () => {
    expect(parseReport(new Uint8Array([0x3c, 0xff, 0xfe, 0x00, 0x80]))).toEqual({
      error: 'report is not valid UTF-8 text (binary file?)',
    });
    expect(parseReport('\u0000\u0001\u0002 binary')).toEqual({
      error: 'unrecognised report: expected JUnit XML, go test -json output or TAP',
    });
    expect(parseReport('<\u0000\u0001>')).toHaveProperty('error');
    expect(parseReport('<testsuite><testcase name="t">')).toEqual({
      error: 'XML line 1, column 12: <testcase> is never closed (unexpected end of input)',
    });
  });
});
