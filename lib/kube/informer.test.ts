import { describe, expect, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { continueOf, listAllPages, pageParams, type ListPage } from './informer.js';

type Obj = k8s.KubernetesObject & { metadata: { name: string; managedFields?: unknown[] } };
type List = k8s.KubernetesListObject<Obj>;

const obj = (name: string): Obj => ({ metadata: { name, managedFields: [{}] } });

/** A server holding `names`, answering pages as the apiserver does; `key` names its continue field. */
function pagedServer(names: readonly string[], key: '_continue' | 'continue') {
  const asked: ListPage[] = [];
  const list = async (page: ListPage): Promise<List> => {
    asked.push(page);
    const from = page.continue === undefined ? 0 : Number(page.continue);
    const next = from + page.limit;
    const metadata = { resourceVersion: '42', ...(next < names.length ? { [key]: String(next) } : {}) };
    return { apiVersion: 'v1', kind: 'List', metadata, items: names.slice(from, next).map(obj) };
  };
  return { list, asked };
}

describe('listAllPages: a list asked for in pages, as one', () => {
  test.each<[string, number, number, '_continue' | 'continue', number]>([
    ['none', 0, 500, '_continue', 1],
    ['under a page', 3, 500, '_continue', 1],
    ['exactly a page (the server says no more)', 4, 4, '_continue', 1],
    ['several pages, a typed list', 10, 4, '_continue', 3],
    ['several pages, a raw (custom object) list', 10, 4, 'continue', 3],
  ])('%s', async (_name, count, limit, key, requests) => {
    const names = Array.from({ length: count }, (_, i) => `o-${i}`);
    const server = pagedServer(names, key);
    const trimmed: string[] = [];
    const got = await listAllPages(
      server.list,
      (o) => {
        delete o.metadata.managedFields;
        trimmed.push(o.metadata.name);
      },
      limit,
    );
    expect(got.items.map((o) => o.metadata.name)).toEqual(names);
    expect(trimmed).toEqual(names);
    expect(got.items.every((o) => o.metadata.managedFields === undefined)).toBe(true);
    // The snapshot's resourceVersion, for the watch; no continue token left on the whole.
    expect(got.metadata).toEqual({ resourceVersion: '42' });
    expect(server.asked).toHaveLength(requests);
    expect(server.asked.every((p) => p.limit === limit)).toBe(true);
    expect(server.asked[0]?.continue).toBeUndefined();
  });

  test('a list function that ignores the page answers everything in one request', async () => {
    let calls = 0;
    const got = await listAllPages(
      async () => {
        calls++;
        return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '7' }, items: [obj('a'), obj('b')] };
      },
      () => undefined,
      1,
    );
    expect(calls).toBe(1);
    expect(got.items).toHaveLength(2);
  });

  test('a page that fails fails the list (the informer starts again from the first page)', async () => {
    const server = pagedServer(['a', 'b', 'c'], '_continue');
    let n = 0;
    const failing = async (page: ListPage) => {
      if (++n === 2) throw new Error('410 Gone: the continue token expired');
      return server.list(page);
    };
    await expect(listAllPages(failing, () => undefined, 1)).rejects.toThrow('410 Gone');
  });
});

describe('pageParams and continueOf', () => {
  test.each<[string, ListPage | undefined, Record<string, unknown>]>([
    ['no page: everything', undefined, {}],
    ['the first page', { limit: 500 }, { limit: 500 }],
    ['a later page', { limit: 500, continue: 'tok' }, { limit: 500, _continue: 'tok' }],
  ])('%s', (_name, page, params) => {
    expect(pageParams(page)).toEqual(params);
  });

  test.each<[string, Record<string, unknown> | undefined, string | undefined]>([
    ['typed', { _continue: 'a' }, 'a'],
    ['raw', { continue: 'b' }, 'b'],
    ['empty string: no more', { continue: '' }, undefined],
    ['none', {}, undefined],
    ['no metadata', undefined, undefined],
  ])('%s', (_name, metadata, token) => {
    expect(continueOf({ apiVersion: 'v1', kind: 'List', items: [], ...(metadata ? { metadata } : {}) })).toBe(token);
  });
});
