/**
 * The Operator Workshop's replies: operator candidates as the Project tools
 * panel lists them, and what accepting one did. Contracts and proofs stay
 * loose records here: the panel shows them, it does not interpret them.
 */
import { z } from "zod/mini";

const record = z.record(z.string(), z.unknown());

export const proofReceipt = z.object({
  proof_id: z.string(),
  candidate_digest: z.string(),
  run_id: z.string(),
  closure_digest: z.string(),
  task_proof: record,
});

/** A proof with its state now: its validation run's phase, and whether it passed as a whole. */
export const proofStatus = z.object({
  proof_id: z.string(),
  candidate_digest: z.string(),
  run_id: z.string(),
  closure_digest: z.string(),
  fixtures: z.array(record),
  task_proof: record,
  run: z.object({ phase: z.string() }),
  proven: z.boolean(),
  passed: z.boolean(),
});

export const listedCandidate = z.object({
  digest: z.string(),
  operator_id: z.string(),
  operator_revision: z.string(),
  contract: record,
  evidence: z.object({
    documentation: z.string(),
    packages: z.array(z.string()),
    flags: z.array(z.object({ flag: z.string(), excerpt: z.string() })),
  }),
  drafted_at_ms: z.number(),
  previous_digest: z.nullable(z.string()),
  accepted_contract: z.nullable(record),
  proofs: z.array(proofStatus),
  /** A proof of exactly this candidate passed: only then does Accept work. */
  acceptable: z.boolean(),
});

export const candidateList = z.object({
  catalog_revision: z.string(),
  candidates: z.array(listedCandidate),
});

export const accepted = z.object({
  operator_id: z.string(),
  operator_revision: z.string(),
  previous_catalog_revision: z.string(),
  catalog_revision: z.string(),
  path: z.string(),
});

export const rejected = z.object({ rejected: z.string() });

export type ListedCandidate = z.infer<typeof listedCandidate>;
export type ProofStatus = z.infer<typeof proofStatus>;
export type CandidateList = z.infer<typeof candidateList>;
export type Accepted = z.infer<typeof accepted>;
