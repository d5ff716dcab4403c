import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors.js';
import { parseXml } from './xml.js';

describe('parseXml', () => {
  it('reads elements, both quote kinds, entities, character references, CDATA, comments and PIs', () => {
    const root = parseXml(
      `<?xml version="1.0"?>\n<!-- c --><a x="1 &amp; 2" y='&#65;&#x42;&lt;'><b/>t&gt;<![CDATA[<raw> & ]]><?pi x?></a>`,
    );
    expect(root.name).toBe('a');
    expect(root.attributes.get('x')).toBe('1 & 2');
    expect(root.attributes.get('y')).toBe('AB<');
    expect(root.children.map((c) => c.name)).toEqual(['b']);
    expect(root.text).toBe('t><raw> & ');
  });

  it('refuses DOCTYPE, so billion laughs never expands', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<lolz>&lol2;</lolz>`;
    expect(() => parseXml(laughs)).toThrow(/line 2, column 1: DOCTYPE not allowed/);
  });

  it('refuses external entities and undeclared entity references', () => {
    const xxe = `<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`;
    expect(() => parseXml(xxe)).toThrow(InvalidInputError);
    expect(() => parseXml('<r><!ENTITY x "y"></r>')).toThrow(/not allowed/);
    expect(() => parseXml('<r>&x;</r>')).toThrow(/line 1, column 4: unknown entity '&x;'/);
    expect(() => parseXml('<r>a & b</r>')).toThrow(/expected an entity reference/);
    expect(() => parseXml('<r>&#0;</r>')).toThrow(/invalid character reference/);
  });

  it('names the line, column and expectation for malformed input', () => {
    expect(() => parseXml('<a>\n  <b>\n</a>')).toThrow(
      /line 3, column 1: expected <\/b> \(opened at 2:3\), found <\/a>/,
    );
    expect(() => parseXml('<a><b>')).toThrow(/<b> is never closed/);
    expect(() => parseXml('<a x=1/>')).toThrow(/expected a quoted value for attribute x/);
    expect(() => parseXml('<a x="<"/>')).toThrow(/'<' is not allowed in attribute values/);
    expect(() => parseXml('<a/><b/>')).toThrow(/a second root element <b>/);
    expect(() => parseXml('junk')).toThrow(/text outside the root element/);
    expect(() => parseXml('<a><!-- never')).toThrow(/comment is never closed/);
    expect(() => parseXml('')).toThrow(/expected a root element/);
  });

  it('bounds nesting depth', () => {
    const deep = '<a>'.repeat(100_000) + '</a>'.repeat(100_000);
    expect(() => parseXml(deep)).toThrow(/nested deeper than 64/);
    expect(parseXml('<a>'.repeat(64) + '</a>'.repeat(64)).name).toBe('a');
  });

  it('stays linear on inputs that would make a backtracking reader crawl', () => {
    const started = performance.now();
    const many = '<r>' + '<t a="1" b=\'2\'>x &amp; y</t>'.repeat(200_000) + '</r>';
    expect(parseXml(many).children).toHaveLength(200_000);
    expect(() => parseXml('<r a="' + 'x'.repeat(5_000_000))).toThrow(/never closed/);
    expect(() => parseXml('<r>' + '&'.repeat(1_000_000) + '</r>')).toThrow(/entity reference/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
