// The content_html_diff of an edit-history entry: words the edit added and removed, marked in
// the new HTML; tags kept as the new HTML has them.
import { describe, expect, it } from 'vitest';
import { htmlDiff } from '../../src/views/htmlDiff.js';

describe('htmlDiff', () => {
  it('marks a replaced word as deleted then inserted', () => {
    expect(htmlDiff('<p>content 1</p>', '<p>content 2</p>')).toBe(
      '<p>content <span class="highlight_text_deleted">1</span><span class="highlight_text_inserted">2</span></p>',
    );
  });

  it('marks added words only, and leaves identical text alone', () => {
    expect(htmlDiff('<p>hello world</p>', '<p>hello big world</p>')).toBe('<p>hello <span class="highlight_text_inserted">big</span> world</p>');
    expect(htmlDiff('<p>same</p>', '<p>same</p>')).toBe('<p>same</p>');
  });

  it('puts removed trailing words after the last remaining one, and keeps the new markup', () => {
    expect(htmlDiff('<p>one two three</p>', '<p><strong>one</strong> two</p>')).toBe(
      '<p><strong>one</strong> two <span class="highlight_text_deleted">three</span></p>',
    );
  });
});
