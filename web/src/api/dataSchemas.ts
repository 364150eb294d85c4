/**
 * The public-data search reply (`GET /api/data/search`, issue 19's wire
 * contract; Rust types in `crates/somite-data/src/model.rs`), checked at the
 * boundary like every other reply. Facts a provider did not state are null,
 * never guessed, so every fact is nullable here.
 */
import { z } from "zod/mini";

const graphId = z.string().check(z.regex(/^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,128}$/, "expected a graph id"));
const portType = z.string().check(z.regex(/^[A-Z][A-Za-z0-9]{0,31}$/, "expected a port type name"));
const finite = z.number().check(z.refine(Number.isFinite, "expected a finite number"));
const count = z.int().check(z.nonnegative());
const paramValue = z.union([z.boolean(), z.number(), z.string()]);
const text = z.nullable(z.string());
const number = z.nullable(finite);

export const dataKinds = ["reads", "assembly", "organism", "gene", "accession"] as const;
export const dataProviders = ["ncbi", "ensembl"] as const;

export const provenance = z.object({
  provider: z.string().check(z.minLength(1)),
  endpoint: z.string(),
  retrieved_at: z.string(),
  from_cache: z.boolean(),
  age_seconds: count,
  release: z._default(text, null),
});

const readsFacts = z.object({
  kind: z.literal("reads"),
  run: text,
  experiment: z._default(text, null),
  study: z._default(text, null),
  bioproject: z._default(text, null),
  biosample: z._default(text, null),
  organism: z._default(text, null),
  taxid: z._default(number, null),
  platform: z._default(text, null),
  instrument: z._default(text, null),
  layout: z._default(z.nullable(z.enum(["paired", "single"])), null),
  spots: z._default(number, null),
  bases: z._default(number, null),
});

const assemblyFacts = z.object({
  kind: z.literal("assembly"),
  accession: text,
  name: z._default(text, null),
  level: z._default(text, null),
  refseq_category: z._default(text, null),
  organism: z._default(text, null),
  taxid: z._default(number, null),
  annotation: z._default(text, null),
  total_length: z._default(number, null),
  release_date: z._default(text, null),
  paired_accession: z._default(text, null),
});

const organismFacts = z.object({
  kind: z.literal("organism"),
  taxid: z._default(number, null),
  scientific_name: z._default(text, null),
  common_name: z._default(text, null),
  rank: z._default(text, null),
  ensembl_species: z._default(text, null),
  ensembl_assembly: z._default(text, null),
});

const geneFacts = z.object({
  kind: z.literal("gene"),
  symbol: z._default(text, null),
  ncbi_gene_id: z._default(z.nullable(z.union([z.string(), finite])), null),
  ensembl_id: z._default(text, null),
  description: z._default(text, null),
  organism: z._default(text, null),
  taxid: z._default(number, null),
  location: z._default(
    z.nullable(
      z.object({
        chromosome: text,
        start: number,
        end: number,
        strand: z.nullable(z.union([z.string(), finite])),
      }),
    ),
    null,
  ),
  assembly: z._default(text, null),
});

export const facts = z.discriminatedUnion("kind", [readsFacts, assemblyFacts, organismFacts, geneFacts]);

const recipeOperation = z.union([
  z.object({
    op: z.literal("add_operator"),
    node_id: graphId,
    operator_id: z.string().check(z.minLength(1)),
    params: z.optional(z.record(z.string(), paramValue)),
    x: finite,
    y: finite,
  }),
  z.object({
    op: z.literal("connect"),
    edge_id: graphId,
    from_node: graphId,
    from_port: z.string().check(z.minLength(1)),
    to_node: graphId,
    to_port: z.string().check(z.minLength(1)),
  }),
]);

export const recipe = z.object({
  summary: z.string(),
  operations: z.array(recipeOperation).check(z.minLength(1)),
  produces: z._default(z.array(z.object({ node_id: graphId, port: z.string(), type: portType })), []),
});

export const dataResult = z.object({
  kind: z.enum(["reads", "assembly", "organism", "gene"]),
  id: z.string(),
  title: z.string(),
  provenance,
  facts,
  recipe: z._default(z.nullable(recipe), null),
  recipe_unavailable: z._default(text, null),
});

export const dataSearchReply = z.object({
  query: z.string(),
  kind: z._default(z.nullable(z.string()), null),
  interpretation: z.object({
    exact: z.boolean(),
    accession_kind: z._default(text, null),
  }),
  results: z.array(dataResult),
  next_cursor: z._default(text, null),
  warnings: z._default(z.array(z.string()), []),
});

export type DataKind = (typeof dataKinds)[number];
export type DataProvider = (typeof dataProviders)[number];
export type DataFacts = z.infer<typeof facts>;
export type DataRecipe = z.infer<typeof recipe>;
export type DataResult = z.infer<typeof dataResult>;
export type DataSearchReply = z.infer<typeof dataSearchReply>;
