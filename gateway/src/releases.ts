/**
 * The gateway's name for the kernel's releases and release calendar
 * (kernel/releases.ts): one rule for both services.
 */
export { compareReleases, isRelease, loadCalendar } from '../../kernel/index.ts';
export type { ReleaseCalendar } from '../../kernel/index.ts';
