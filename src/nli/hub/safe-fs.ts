import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { constants, lstatSync, mkdirSync, realpathSync, renameSync, statSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { HubError } from "./errors.ts";
import { isInside } from "./names.ts";

// `model pull` writes into a folder others may write to as well (a shared hub cache): a link
// planted there (snapshots/<sha>, onnx/, refs, the repo folder, a *.incomplete file) must not
// carry a write outside it. Directories are created one level at a time and their real paths
// checked; files are opened without following links, written under a fresh name, and renamed
// into place, so a link at the destination is replaced, never written through.

/** The folder every write of a pull stays in: the hub cache, or --dir. */
export interface WriteRoot {
  /** As given. */
  readonly path: string;
  /** Its real path (the folder itself may be a link, say a cache on another disk: the user chose it). */
  readonly real: string;
}

/** Creates `path` if missing and resolves its real path: the root of a pull's writes. */
export function openWriteRoot(path: string): WriteRoot {
  mkdirSync(path, { recursive: true });
  const real = realpathSync(path);
  if (!statSync(real).isDirectory()) throw new HubError(`${path} is not a directory`);
  return { path, real };
}

function realInside(root: WriteRoot, real: string): boolean {
  return real === root.real || isInside(root.real, real);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Creates `dir` (inside `root`) one level at a time, checking that each level's real path stays
 * inside the root: a link that leads out of it (or nowhere) is refused before anything is created
 * through it. Returns `dir`.
 */
export function ensureDirInside(root: WriteRoot, dir: string): string {
  const rel = relative(root.path, dir);
  if (rel !== "" && !isInside(root.path, dir)) throw new HubError(`refusing to write in ${dir}: it is outside ${root.path}`);
  let at = root.path;
  for (const part of rel === "" ? [] : rel.split(sep)) {
    at = join(at, part);
    if (!lstatOrUndefined(at)) mkdirSync(at);
    let real: string;
    try {
      real = realpathSync(at);
    } catch {
      throw new HubError(`refusing to write in ${at}: it is a link that leads nowhere; remove it and pull again`);
    }
    if (!realInside(root, real)) throw new HubError(`refusing to write in ${at}: it is a link to ${real}, outside ${root.path}; remove it and pull again`);
    if (!statSync(real).isDirectory()) throw new HubError(`refusing to write in ${at}: it is not a directory`);
  }
  return dir;
}

/**
 * The size of the file at `path` if it is one groundwatch may treat as already there: a regular
 * file, or a link whose real path is a file inside the root (the hub's own clients link
 * snapshots/ to blobs/). Anything else (missing, a link leading out) is undefined: it is replaced.
 */
export function existingFileSize(root: WriteRoot, path: string): number | undefined {
  const st = lstatOrUndefined(path);
  if (!st) return undefined;
  if (st.isFile()) return st.size;
  if (!st.isSymbolicLink()) return undefined;
  try {
    const real = realpathSync(path);
    const target = statSync(real);
    return realInside(root, real) && target.isFile() ? target.size : undefined;
  } catch {
    return undefined;
  }
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Opens a partial download to append to: an existing regular file (not shared through a hard link)
 * is resumed; anything else at that name (a link, planted or dangling) is removed, never followed,
 * and a new file is created with O_EXCL | O_NOFOLLOW. Returns the handle and the bytes already there.
 */
export async function openPartial(path: string): Promise<{ handle: FileHandle; have: number }> {
  const st = lstatOrUndefined(path);
  if (st && st.isFile() && st.nlink === 1) {
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    return { handle, have: (await handle.stat()).size };
  }
  if (st) unlinkSync(path);
  return { handle: await open(path, CREATE, 0o644), have: 0 };
}

/** Writes `text` to `path` through a fresh temporary file beside it (O_EXCL | O_NOFOLLOW) renamed into place. */
export async function writeFileReplacing(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, CREATE, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}
