/**
 * Operator contracts by id, fetched once per catalog revision.
 *
 * Nodes carry only their pinned ports; titles, descriptions and parameter
 * labels and help live in the contract (`GET /api/catalog/operators/{id}`).
 * The canvas asks for every operator on it and the inspector for the
 * selected one; each is fetched once and shared.
 */
import { describeFailure } from "../api/errors";
import type { SomiteApi } from "../api/endpoints";
import type { OperatorReply } from "../api/types";

export type ContractEntry =
  | { readonly status: "loading" }
  | { readonly status: "loaded"; readonly reply: OperatorReply }
  | { readonly status: "failed"; readonly message: string };

export class ContractCache {
  private entries = new Map<string, ContractEntry>();
  private catalogRevision: string | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: SomiteApi) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** An immutable map, replaced on every change (for useSyncExternalStore). */
  readonly getEntries = (): ReadonlyMap<string, ContractEntry> => this.entries;

  /** Starts loading the contracts not yet known for this catalog revision. */
  request(ids: Iterable<string>, catalogRevision: string): void {
    if (catalogRevision !== this.catalogRevision) {
      this.catalogRevision = catalogRevision;
      this.entries = new Map();
    }
    for (const id of ids) {
      if (this.entries.has(id)) continue;
      this.update(id, { status: "loading" });
      this.api.operator(id).then(
        (reply) => {
          if (catalogRevision === this.catalogRevision) this.update(id, { status: "loaded", reply });
        },
        (error: unknown) => {
          if (catalogRevision === this.catalogRevision) {
            this.update(id, { status: "failed", message: describeFailure(error).title });
          }
        },
      );
    }
  }

  /** The contract, loading it first if needed. */
  async load(id: string, catalogRevision: string): Promise<OperatorReply> {
    const known = catalogRevision === this.catalogRevision ? this.entries.get(id) : undefined;
    if (known?.status === "loaded") return known.reply;
    const reply = await this.api.operator(id);
    if (catalogRevision === this.catalogRevision || this.catalogRevision === undefined) {
      this.catalogRevision = catalogRevision;
      this.update(id, { status: "loaded", reply });
    }
    return reply;
  }

  private update(id: string, entry: ContractEntry): void {
    this.entries = new Map(this.entries).set(id, entry);
    for (const listener of this.listeners) listener();
  }
}
