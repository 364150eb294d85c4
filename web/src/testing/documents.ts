/**
 * Test fixtures: a tiny catalog and an operation interpreter that mirrors the
 * runtime's `apply_operations` (the transaction operations of docs/http-api.md), strict
 * enough that an operation order the runtime would refuse fails here too.
 */
import { createHash } from "node:crypto";
import type { Operation, PortSpec, WorkflowDocument, WorkflowNode } from "../api/types";

export function revisionOf(value: unknown): string {
  return `blake3:${createHash("sha256").update(JSON.stringify(value)).digest("hex")}`;
}

function port(name: string, type: string, extra: Partial<PortSpec> = {}): PortSpec {
  return { name, type, union: [], optional: false, ...extra };
}

const CATALOG: Readonly<Record<string, { revision: string; ports: WorkflowNode["ports"] }>> = {
  "files.import_fastq": {
    revision: revisionOf("files.import_fastq@1"),
    ports: { in: [], out: [port("reads", "Fastq", { import_param: "path" })] },
  },
  "qc.fastqc": {
    revision: revisionOf("qc.fastqc@1"),
    ports: { in: [port("reads", "Fastq", { union: ["FastqGz"] })], out: [port("report_html", "Html")] },
  },
  "qc.fastp": {
    revision: revisionOf("qc.fastp@1"),
    ports: {
      in: [port("r1", "Fastq", { union: ["FastqGz"] })],
      out: [port("trimmed_r1", "FastqGz"), port("report_json", "Json")],
    },
  },
  "class.kraken2": {
    revision: revisionOf("class.kraken2@1"),
    ports: {
      in: [
        port("db", "Directory", {
          resource: { profile: "kraken2-database", title: "Kraken2 database", detail: "", resolutions: [] },
        }),
        port("r1", "Fastq", { union: ["FastqGz"] }),
      ],
      out: [port("report", "Text")],
    },
  },
  "files.import_kraken2_database": {
    revision: revisionOf("files.import_kraken2_database@1"),
    ports: { in: [], out: [port("db", "Directory", { resource_profile: "kraken2-database" })] },
  },
};

export function emptyDocument(title = "Test workflow"): WorkflowDocument {
  return { schema_version: 1, title, nodes: [], edges: [], notes: [], stages: [] };
}

export function node(id: string, operatorId: string, x = 0, y = 0, params: WorkflowNode["params"] = {}): WorkflowNode {
  const entry = CATALOG[operatorId];
  if (!entry) throw new Error(`no test operator ${operatorId}`);
  return { id, operator_id: operatorId, operator_revision: entry.revision, ports: entry.ports, params, x, y };
}

export const DEMO_COMMIT = "04060b4644d68649180db796e89a3db2a466a8d8";
export const DEMO_TREE = revisionOf("nf-core/demo tree");

/** A `workflow.source` node pinning nf-core/demo 1.0.1, as resolving places it. */
export function sourceNode(id = "source", params: WorkflowNode["params"] = {}): WorkflowNode {
  return {
    id,
    operator_id: "workflow.source",
    operator_revision: revisionOf("workflow.source@1"),
    ports: { in: [], out: [] },
    params,
    x: 0,
    y: 0,
    source: {
      provider: "nf-core",
      repository: "nf-core/demo",
      release: "1.0.1",
      git_ref: null,
      commit: DEMO_COMMIT,
      tree_digest: DEMO_TREE,
      entry: "main.nf",
      name: "nf-core/demo",
      description: null,
      nextflow_version: null,
      params: [],
      processes: [],
    },
  };
}

/** A replacement as the runtime records it for `operatorId` of the test catalog. */
export function replacement(
  invocation: string,
  operatorId: string,
  inputs: Record<string, string>,
  outputs: Record<string, string>,
): NonNullable<WorkflowNode["replacements"]>[number] {
  const entry = CATALOG[operatorId];
  if (!entry) throw new Error(`no test operator ${operatorId}`);
  const pairs = (map: Record<string, string>) => Object.entries(map).map(([invocation_port, operator_port]) => ({ invocation_port, operator_port }));
  return { invocation, operator_id: operatorId, operator_revision: entry.revision, ports: entry.ports, inputs: pairs(inputs), outputs: pairs(outputs) };
}

export class OperationError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

/** Applies `operations` to a copy of `document`, or throws like the runtime. */
export function applyOperations(document: WorkflowDocument, operations: readonly Operation[]): WorkflowDocument {
  let doc = structuredClone(document);
  operations.forEach((op, index) => {
    doc = applyOne(doc, op, index);
  });
  return doc;
}

function applyOne(doc: WorkflowDocument, op: Operation, index: number): WorkflowDocument {
  const fail = (code: string, message: string): never => {
    throw new OperationError(code, message, index);
  };
  const claim = (id: string) => {
    const taken = [...doc.nodes, ...doc.edges, ...doc.notes].some((item) => item.id === id);
    if (taken) fail("duplicate_id", `the id \`${id}\` is already in use`);
  };
  const existing = (id: string) => doc.nodes.find((n) => n.id === id) ?? fail("unknown_node", `there is no node \`${id}\``);
  switch (op.op) {
    case "add_operator": {
      claim(op.node_id);
      const created = node(op.node_id, op.operator_id, op.x, op.y, { ...(op.params ?? {}) });
      return { ...doc, nodes: [...doc.nodes, created] };
    }
    case "remove_operator":
      existing(op.node_id);
      return {
        ...doc,
        nodes: doc.nodes.filter((n) => n.id !== op.node_id),
        edges: doc.edges.filter((e) => e.from_node !== op.node_id && e.to_node !== op.node_id),
      };
    case "set_param":
      existing(op.node_id);
      return { ...doc, nodes: doc.nodes.map((n) => (n.id === op.node_id ? { ...n, params: { ...n.params, [op.param]: op.value } } : n)) };
    case "unset_param":
      existing(op.node_id);
      return {
        ...doc,
        nodes: doc.nodes.map((n) =>
          n.id === op.node_id ? { ...n, params: Object.fromEntries(Object.entries(n.params).filter(([k]) => k !== op.param)) } : n,
        ),
      };
    case "connect": {
      claim(op.edge_id);
      const from = existing(op.from_node).ports.out.find((p) => p.name === op.from_port);
      const to = existing(op.to_node).ports.in.find((p) => p.name === op.to_port);
      if (!from || !to) return fail("unknown_port", "unknown port");
      if (doc.edges.some((e) => e.to_node === op.to_node && e.to_port === op.to_port)) {
        fail("port_already_connected", `input ${op.to_node}.${op.to_port} is already connected`);
      }
      if (from.type !== to.type && !to.union.includes(from.type)) fail("incompatible_ports", "incompatible");
      const { op: _kind, edge_id, ...ends } = op;
      return { ...doc, edges: [...doc.edges, { id: edge_id, ...ends }] };
    }
    case "disconnect":
      if (!doc.edges.some((e) => e.id === op.edge_id)) fail("unknown_edge", `there is no edge \`${op.edge_id}\``);
      return { ...doc, edges: doc.edges.filter((e) => e.id !== op.edge_id) };
    case "move":
      existing(op.node_id);
      return { ...doc, nodes: doc.nodes.map((n) => (n.id === op.node_id ? { ...n, x: op.x, y: op.y } : n)) };
    case "add_note":
      claim(op.note_id);
      return { ...doc, notes: [...doc.notes, { id: op.note_id, text: op.text, x: op.x, y: op.y }] };
    case "edit_note":
      if (!doc.notes.some((n) => n.id === op.note_id)) fail("unknown_note", "unknown note");
      return { ...doc, notes: doc.notes.map((n) => (n.id === op.note_id ? { ...n, text: op.text } : n)) };
    case "remove_note":
      if (!doc.notes.some((n) => n.id === op.note_id)) fail("unknown_note", "unknown note");
      return { ...doc, notes: doc.notes.filter((n) => n.id !== op.note_id) };
    case "set_title":
      return { ...doc, title: op.title };
    case "replace_invocation": {
      const source = existing(op.node_id);
      if (!source.source) fail("not_a_source_node", `\`${op.node_id}\` is not a source workflow`);
      if (!CATALOG[op.operator_id]) fail("operator_not_found", `no operator ${op.operator_id}`);
      // The runtime matches omitted maps by type from the outline; this
      // interpreter has no outline, so undo must always send them.
      if (!op.inputs || !op.outputs) return fail("unsupported", "the test interpreter needs explicit port maps");
      const added = replacement(op.invocation, op.operator_id, op.inputs, op.outputs);
      const others = (source.replacements ?? []).filter((r) => r.invocation !== op.invocation);
      return { ...doc, nodes: doc.nodes.map((n) => (n.id === op.node_id ? { ...n, replacements: [...others, added] } : n)) };
    }
    case "restore_invocation": {
      const source = existing(op.node_id);
      const replacements = source.replacements ?? [];
      if (!replacements.some((r) => r.invocation === op.invocation)) fail("unknown_invocation", `${op.invocation} is not replaced`);
      const rest = replacements.filter((r) => r.invocation !== op.invocation);
      return {
        ...doc,
        nodes: doc.nodes.map((n) => {
          if (n.id !== op.node_id) return n;
          const { replacements: _all, ...plain } = n;
          return rest.length > 0 ? { ...plain, replacements: rest } : plain;
        }),
      };
    }
    case "set_process_environment": {
      const source = existing(op.node_id);
      if (!source.source) fail("not_a_source_node", `\`${op.node_id}\` is not a source workflow`);
      const others = (source.process_environments ?? []).filter((e) => e.process !== op.process);
      const chosen = [...others, { process: op.process, choice: op.choice }].sort((a, b) => a.process.localeCompare(b.process));
      return { ...doc, nodes: doc.nodes.map((n) => (n.id === op.node_id ? { ...n, process_environments: chosen } : n)) };
    }
    case "unset_process_environment": {
      const source = existing(op.node_id);
      const chosen = source.process_environments ?? [];
      if (!chosen.some((e) => e.process === op.process)) fail("unknown_process", `${op.process} has no environment chosen`);
      const rest = chosen.filter((e) => e.process !== op.process);
      return {
        ...doc,
        nodes: doc.nodes.map((n) => {
          if (n.id !== op.node_id) return n;
          const { process_environments: _all, ...plain } = n;
          return rest.length > 0 ? { ...plain, process_environments: rest } : plain;
        }),
      };
    }
    case "revert_variant": {
      const origin = doc.variant_origin ?? fail("not_a_variant", "the document is not a promoted variant");
      const { variant_origin: _origin, ...plain } = doc;
      return { ...plain, nodes: [origin.source], edges: [] };
    }
  }
}

/** The document's identity regardless of the order of its lists. */
export function canonical(document: WorkflowDocument): unknown {
  const sorted = <T extends { id: string }>(items: readonly T[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));
  const nodes = sorted(document.nodes).map((n) =>
    n.replacements ? { ...n, replacements: [...n.replacements].sort((a, b) => a.invocation.localeCompare(b.invocation)) } : n,
  );
  return { ...document, nodes, edges: sorted(document.edges), notes: sorted(document.notes) };
}
