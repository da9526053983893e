import { expect, test } from '@jest/globals';
import { redactUrl } from './valkey.js';

test('a Valkey URL is shown without its credentials', () => {
  expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  expect(redactUrl('rediss://:s3cret@valkey.example:6380/2')).toBe('rediss://valkey.example:6380/2 (credentials not shown)');
  expect(redactUrl('not a url')).toBe('(a URL that does not parse)');
});
