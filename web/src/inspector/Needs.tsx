import type { ReadinessItem } from "../api/types";
import { Why } from "../readiness/Why";

/** A node's open requirements in its inspector, each with why it is required. */
export function Needs({ items }: { items: readonly ReadinessItem[] }) {
  if (items.length === 0) return null;
  return (
    <section className="inspector__section" aria-label="Open requirements">
      <h3 className="inspector__subtitle">Needs</h3>
      <ul className="needs">
        {items.map((item) => (
          <li key={item.id} className={`need need--${item.kind}`}>
            {item.title}
            <Why evidence={item.evidence} />
          </li>
        ))}
      </ul>
    </section>
  );
}
