import { promises } from 'node:fs';
import type { FsLike } from '../../core/ports.js';
import { answeringProbe } from './fs-probe.js';

/** The real disk as core's `FsLike`, for local repositories (read side of the CLI). */
export const nodeFs: FsLike = { promises: answeringProbe(promises as unknown as FsLike['promises']) };
