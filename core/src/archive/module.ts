/**
 * The core's archive as a module: finished jobs past their retention go to
 * DATA_DIR/archive (off unless RETENTION_JOB_DAYS is set, docs/archive.md).
 * Nothing is archived until the service starts it.
 */
import { startArchiveService } from '../../../kernel/index.ts';
import type { Logger, Store } from '../../../kernel/index.ts';
import type { AppConfig } from '../../../config/schema.ts';
import type { CoreModule } from '../module.ts';
import { jobsGroup } from './jobs.ts';

export interface JobArchiveDeps {
  readonly store: Store;
  readonly config: Readonly<Pick<AppConfig, 'dataDir' | 'retention'>>;
  readonly logger: Logger;
}

export function jobArchiveModule(deps: JobArchiveDeps): CoreModule {
  let service: ReturnType<typeof startArchiveService> | null = null;
  return {
    name: 'job archive',
    routes: [],
    start() {
      service ??= startArchiveService({ store: deps.store, dataDir: deps.config.dataDir, group: jobsGroup, days: deps.config.retention.jobDays, retention: deps.config.retention, logger: deps.logger });
    },
    async stop() {
      await service?.stop();
      service = null;
    },
  };
}
