/**
 * The kernel's repository on both stores (MongoDB when MONGO_URL is set):
 * 404 naming the noun, a duplicate as the factory's 409 (or the collection's
 * own refusal), and revision-checked updates that lose no concurrent change.
 * The race is driven by holding one update between its read and its write.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, ConflictError, NotFoundError } from '../../../kernel/errors.ts';
import { index, plainCollection } from '../../../kernel/store/collections.ts';
import { declareCollection, repository, UPDATE_ATTEMPTS } from '../../../kernel/store/repository.ts';
import type { Repository } from '../../../kernel/store/repository.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc, DocCollection, Store } from '../../../kernel/store/types.ts';
import { MONGO_SKIP_REASON, openMongoTestStore } from '../../helpers/stores.ts';

interface Widget {
  _id: string;
  name: string;
  shelf: string;
  tags: string[];
  _rev?: number;
}

const WIDGETS = declareCollection<Widget>(plainCollection('widgets', [index([['name', 1]], true)]), { noun: 'widget' });
const GADGETS = declareCollection<Widget>(plainCollection('gadgets', [index([['name', 1], ['shelf', 1]], true)]), {
  noun: 'item',
  notFound: (id) => `Item ${id} not found`,
  uniqueName: { parameter: 'shelf', of: (doc) => `${doc.name} on shelf ${doc.shelf}` },
});
const PLATFORM = declareCollection<Widget>(plainCollection('platform_things', [index([['name', 1]], true)]), {
  noun: 'thing',
  duplicate: () => new AppError(400, 'CONFLICT', 'Thing with given name already exists'),
});
const SPECS = [WIDGETS.spec, GADGETS.spec, PLATFORM.spec];

const factories = [
  { name: 'sqlite', skip: null, open: async (): Promise<Store> => SqliteStore.open({ dataDir: ':memory:', collections: SPECS }) },
  { name: 'mongodb', skip: process.env['MONGO_URL'] ? null : MONGO_SKIP_REASON, open: () => openMongoTestStore(SPECS) },
];

const widget = (id: string, name: string, extra: Partial<Widget> = {}): Widget => ({ _id: id, name, shelf: 'a', tags: [], ...extra });

/** A promise and the function that settles it: lets a test hold an update where it wants. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

for (const factory of factories) {
  describe(`repository on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let store: Store;
    let widgets: Repository<Widget>;
    before(async () => {
      store = await factory.open();
      widgets = repository(store, WIDGETS);
    });
    after(async () => {
      await store.close();
    });

    test('get of an unknown id is a 404 naming the noun and the id; find is null', async () => {
      await assert.rejects(widgets.get('nope'), (err: unknown) => err instanceof NotFoundError && err.message === 'Widget nope was not found');
      assert.equal(await widgets.find('nope'), null);
      await assert.rejects(repository(store, GADGETS).get('x1'), { message: 'Item x1 not found', status: 404 });
    });

    test('insertNew stores each document once: a replayed batch stores only what is not there yet', async () => {
      assert.equal(await widgets.insertNew([widget('r1', 'replayed one'), widget('r2', 'replayed two')]), 2);
      assert.equal(await widgets.insertNew([widget('r2', 'replayed two'), widget('r3', 'replayed three')]), 1, 'r2 is skipped, r3 is new');
      assert.deepEqual((await widgets.findMany(['r1', 'r2', 'r3'])).map((w) => w._id).sort(), ['r1', 'r2', 'r3']);
      assert.equal(await widgets.insertNew([widget('r1', 'replayed one')]), 0);
    });

    test('insert then get answers the document, typed, unchanged', async () => {
      await widgets.insert(widget('w1', 'first', { tags: ['t'] }));
      const found = await widgets.get('w1');
      assert.deepEqual(found, widget('w1', 'first', { tags: ['t'] }));
      assert.deepEqual(found.tags, ['t']);
    });

    test('a taken id and a taken unique name are 409s from the one message factory, naming the parameter', async () => {
      await widgets.insert(widget('w2', 'second'));
      await assert.rejects(widgets.insert(widget('w2', 'other')), (err: unknown) => {
        assert.ok(err instanceof ConflictError);
        assert.deepEqual([err.status, err.message, err.details], [409, 'A widget with id w2 already exists', [{ parameter: '_id', message: 'is already the id of another widget' }]]);
        return true;
      });
      await assert.rejects(widgets.insert(widget('w3', 'second')), (err: unknown) => {
        assert.ok(err instanceof ConflictError);
        assert.deepEqual([err.status, err.message, err.details], [409, 'A widget named second already exists', [{ parameter: 'name', message: 'is already the name of another widget' }]]);
        return true;
      });
      assert.equal(await widgets.find('w3'), null, 'nothing was written');
    });

    test('a collection names its unique key in its own words, or answers its own refusal', async () => {
      const gadgets = repository(store, GADGETS);
      await gadgets.insert(widget('g1', 'knob', { shelf: 'top' }));
      await assert.rejects(gadgets.insert(widget('g2', 'knob', { shelf: 'top' })), { status: 409, message: 'An item named knob on shelf top already exists', details: [{ parameter: 'shelf', message: 'is already the shelf of another item' }] });
      const things = repository(store, PLATFORM);
      await things.insert(widget('p1', 'one'));
      await assert.rejects(things.insert(widget('p2', 'one')), { status: 400, code: 'CONFLICT', message: 'Thing with given name already exists' });
    });

    test('a rename onto a taken name, by update or replace, is the same 409 and changes nothing', async () => {
      await widgets.insert(widget('w4', 'fourth'));
      await widgets.insert(widget('w5', 'fifth'));
      await assert.rejects(widgets.update('w5', (w) => ({ ...w, name: 'fourth' })), { status: 409, message: 'A widget named fourth already exists' });
      await assert.rejects(widgets.replace({ ...(await widgets.get('w5')), name: 'fourth' }), { status: 409, message: 'A widget named fourth already exists' });
      assert.equal((await widgets.get('w5')).name, 'fifth');
    });

    test('update writes revision (rev ?? 0) + 1: a document stored without one, then each write after', async () => {
      await store.collection('widgets').insertOne({ _id: 'old', name: 'old', shelf: 'a', tags: [] });
      const first = await widgets.update('old', (w) => ({ ...w, tags: ['one'] }));
      assert.equal(first._rev, 1);
      const second = await widgets.update('old', (w) => ({ ...w, tags: [...w.tags, 'two'] }));
      assert.deepEqual([second._rev, second.tags], [2, ['one', 'two']]);
      assert.deepEqual(await widgets.get('old'), second);
    });

    test('two concurrent updates from the same read: both are applied, none is lost', async () => {
      await widgets.insert(widget('race', 'race', { _rev: 0 }));
      const held = gate();
      const read = gate();
      let slowCalls = 0;
      // The slow update reads, then waits until the fast one has written; its write then finds the revision moved on.
      const slow = widgets.update('race', async (w) => {
        slowCalls += 1;
        if (slowCalls === 1) {
          read.open();
          await held.opened;
        }
        return { ...w, tags: [...w.tags, 'slow'] };
      });
      await read.opened;
      const fast = await widgets.update('race', (w) => ({ ...w, tags: [...w.tags, 'fast'] }));
      assert.deepEqual(fast.tags, ['fast']);
      held.open();
      const done = await slow;
      assert.equal(slowCalls, 2, 'the slow update read again after losing');
      assert.deepEqual(done.tags, ['fast', 'slow']);
      assert.deepEqual(await widgets.get('race'), { ...widget('race', 'race'), tags: ['fast', 'slow'], _rev: 2 });
    });

    test('an update that loses every race gives up with a 409 after a bounded number of reads', async () => {
      await widgets.insert(widget('busy', 'busy'));
      let calls = 0;
      await assert.rejects(
        widgets.update('busy', async (w) => {
          calls += 1;
          // Another writer gets in between this read and its write, every time.
          await widgets.update('busy', (x) => ({ ...x, tags: [...x.tags, 'other'] }));
          return { ...w, tags: [...w.tags, 'mine'] };
        }),
        { status: 409, message: 'Widget busy kept changing while it was being updated; try again' },
      );
      assert.equal(calls, UPDATE_ATTEMPTS);
      assert.ok(!(await widgets.get('busy')).tags.includes('mine'), 'the losing change was never written');
    });

    test('mutate refuses by throwing, and nothing is written; its changes do not alter what the next read sees', async () => {
      await widgets.insert(widget('w6', 'sixth', { _rev: 0 }));
      await assert.rejects(
        widgets.update('w6', (w) => {
          w.tags.push('half-done');
          throw new ConflictError('no');
        }),
        { message: 'no' },
      );
      assert.deepEqual(await widgets.get('w6'), widget('w6', 'sixth', { _rev: 0 }));
    });

    test('swap is one compare-and-set: null when another writer got there first', async () => {
      await widgets.insert(widget('w7', 'seventh', { _rev: 3 }));
      const read = await widgets.get('w7');
      const won = await widgets.swap(read, { ...read, shelf: 'b' });
      assert.equal(won?._rev, 4);
      assert.equal(await widgets.swap(read, { ...read, shelf: 'c' }), null);
      assert.equal((await widgets.get('w7')).shelf, 'b');
    });

    test('update, replace and delete of an unknown id are 404s naming it', async () => {
      await assert.rejects(widgets.update('gone', (w) => w), { status: 404, message: 'Widget gone was not found' });
      await assert.rejects(widgets.replace(widget('gone', 'gone')), { status: 404, message: 'Widget gone was not found' });
      await assert.rejects(widgets.delete('gone'), { status: 404, message: 'Widget gone was not found' });
      await widgets.insert(widget('w8', 'eighth'));
      await widgets.delete('w8');
      assert.equal(await widgets.find('w8'), null);
      assert.deepEqual([await widgets.remove('w8'), await widgets.remove('w4'), await widgets.find('w4')], [false, true, null], 'remove answers whether there was one');
    });

    test('put inserts or replaces whole, the later writer winning even when another inserted in between', async () => {
      await widgets.put(widget('p1', 'put-one'));
      await widgets.put(widget('p1', 'put-one', { shelf: 'b' }));
      assert.equal((await widgets.get('p1')).shelf, 'b');
      // Another writer's insert lands between put's replace (nothing there yet) and its insert.
      const collection = store.collection('widgets');
      const interfering: DocCollection = Object.assign(Object.create(collection) as DocCollection, {
        async replaceOne(doc: Doc): Promise<boolean> {
          const replaced = await collection.replaceOne(doc);
          if (!replaced) await collection.insertOne({ ...doc, shelf: 'other writer' });
          return replaced;
        },
      });
      const racing = repository(Object.assign(Object.create(store) as Store, { collection: () => interfering }), WIDGETS);
      await racing.put(widget('p2', 'put-two', { shelf: 'mine' }));
      assert.equal((await widgets.get('p2')).shelf, 'mine');
      // A taken unique name is not an id to overwrite: the declaration's refusal.
      await assert.rejects(widgets.put(widget('p3', 'put-one')), { status: 409, message: 'A widget named put-one already exists' });
      assert.equal(await widgets.find('p3'), null);
    });

    test('findMany and search answer typed documents', async () => {
      const many = await widgets.findMany(['w1', 'w2', 'missing']);
      assert.deepEqual(many.map((w) => w.name).sort(), ['first', 'second']);
      const page = await widgets.search({ where: null, sort: [], skip: 0, limit: 1000 });
      assert.ok(page.total >= 2 && page.docs.every((w) => typeof w.name === 'string'));
    });
  });
}
