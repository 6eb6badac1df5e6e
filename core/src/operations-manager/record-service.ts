/**
 * What the automation and trigger services share: the repository of their
 * records, the clock their timestamps read (a test passes its own), and the
 * read and list access their routes use.
 */
import { repository } from '../../../kernel/index.ts';
import type { CollectionDeclaration, DocCollection, Keyed, Repository, Store } from '../../../kernel/index.ts';

export abstract class RecordService<T extends Keyed> {
  readonly records: Repository<T>;
  protected readonly now: () => number;

  protected constructor(store: Store, declaration: CollectionDeclaration<T>, now: (() => number) | undefined) {
    this.records = repository(store, declaration);
    this.now = now ?? Date.now;
  }

  /** The collection itself, for the list route's pages. */
  get collection(): DocCollection {
    return this.records.collection;
  }

  get(id: string): Promise<T> {
    return this.records.get(id);
  }
}
