// Every subcommand of `waitgate`, in the order help lists them. A new command is a file
// beside this one and a line here.
import type { Command } from './command.js';
import { approve, reject } from './approve.js';
import { cancel } from './cancel.js';
import { check } from './check.js';
import { describe } from './describe.js';
import { doctor } from './doctor.js';
import { held } from './held.js';
import { mcp } from './mcp.js';
import { triggersCheck } from './triggers-check.js';
import { version } from './version.js';

export const COMMANDS: readonly Command[] = [held, describe, cancel, approve, reject, check, doctor, mcp, triggersCheck, version];
