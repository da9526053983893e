// What the receiver needs of one forge, in one place: its route, how a request is
// authenticated (from the headers before a byte of the body is read, and where the forge signs
// the body, from the raw bytes before anything is parsed), where its delivery id is, how its
// payloads become events, and how the head of a repository's default branch is read (for a
// trigger that pins the revision of an issue). receiver/forges/index.ts keeps one per forge.
import type { ParsedEvent } from './event.js';

/** Every copy of every header (IncomingMessage.headersDistinct). */
export type RequestHeaders = Readonly<Record<string, readonly string[] | undefined>>;

export type HeaderCheck =
  | { readonly ok: false }
  /** `verifyBody`: what the raw body must pass before it is parsed (GitHub's HMAC); absent: nothing more. */
  | { readonly ok: true; readonly verifyBody?: (body: Buffer) => boolean };

export interface ParseInput {
  readonly headers: RequestHeaders;
  /** The delivery id the headers carried, when they carry one. */
  readonly deliveryId: string | undefined;
  readonly body: Buffer;
  /** The body, JSON-parsed. */
  readonly payload: unknown;
}

/** A forge's REST API as the receiver may use it: read only. */
export interface ForgeApi {
  /** The API root: https://api.github.com, https://gitlab.com/api/v4, https://dev.azure.com/ORG. */
  readonly url: string;
  readonly token: string;
  readonly timeoutMs: number;
}

export interface ReceiverForgeModule {
  /** The path deliveries are POSTed to. */
  readonly route: `/webhooks/${string}`;
  /** Headers that carry the delivery id, in the order they are read; none when the forge sends it in the body or not at all. */
  readonly deliveryIdHeaders: readonly string[];
  /** Authenticates the request from its headers with any of `secrets` (several during a rotation), in constant time. */
  checkHeaders(headers: RequestHeaders, secrets: readonly string[]): HeaderCheck;
  /** Turns a verified delivery into an event: ids only. */
  parse(input: ParseInput): ParsedEvent;
  /** The commit id at the head of the repository's default branch, read now. Throws when it cannot be read. */
  defaultBranchHead(api: ForgeApi, repository: string): Promise<string>;
  /**
   * The labels on the issue, pull or merge request (`#` or `!` with its number) now, read from
   * the forge (receiver.confirmLabels). Throws when they cannot be read.
   */
  currentLabels(api: ForgeApi, target: { repository: string; separator: '#' | '!'; number: string }): Promise<readonly string[]>;
}
