/**
 * How long the store's WAL may be, from the size of its file: `stat`, which
 * opens nothing. The file is never shorter than the WAL in it (SQLite
 * appends frames at the WAL's end and only ever cuts the file back), so a
 * short file proves a short WAL; a long one is long, or was, and the
 * checkpoint thread cuts it back (TRUNCATE) once its WAL is copied whole.
 *
 * Nothing in this process may open and close the store's `-wal` or `-shm`
 * file to read it: POSIX advisory locks belong to the process, and closing
 * any descriptor of a file drops every lock the process holds on it,
 * SQLite's own included (https://www.sqlite.org/howtocorrupt.html, 2.2).
 * Reading the WAL-index header that way was tried here, and the next
 * archive run at 1M jobs corrupted the database.
 */
import { statSync } from 'node:fs';

export function walFileBytes(databaseFile: string): number {
  return statSync(`${databaseFile}-wal`, { throwIfNoEntry: false })?.size ?? 0;
}
