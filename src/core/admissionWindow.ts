/**
 * The last `size` keys a cache did not keep (URLs by a 30-bit hash of each, so no string is held; document ids as
 * they are), in a ring: a key among them is admitted (and forgotten) when seen again. Two keys of the same hash only
 * admit one early, which costs nothing but a kept entry. Each hash remembers its slot, so a slot overwritten later
 * forgets only the hash it held. The shared response cache, the dispatcher's validated args, the presentation cache,
 * the document cache and the Redis read model's parsed documents use it once full: on a site much larger than a
 * cache, read at random, keeping every first sighting only pushes another entry out, and each entry pushed out is
 * garbage in the old generation, which the collector pays for in proportion to the whole heap.
 */
export class AdmissionWindow {
  private readonly ring: number[] = [];
  private readonly slotOf = new Map<number, number>();
  private next = 0;

  constructor(private readonly size: number) {}

  /**
   * Whether `key` was seen within the window (it is then forgotten); otherwise it is remembered. A number (a
   * document id) is its own hash.
   */
  admits(key: string | number): boolean {
    const hash = typeof key === 'number' ? key : hashOf(key);
    if (this.slotOf.delete(hash)) return true;
    this.push(hash);
    return false;
  }

  /** Remembers `key`, so that its next answer is admitted. */
  remember(key: string): void {
    const hash = hashOf(key);
    if (!this.slotOf.has(hash)) this.push(hash);
  }

  private push(hash: number): void {
    if (this.size <= 0) return;
    if (this.ring.length === this.size) {
      const gone = this.ring[this.next]!;
      if (this.slotOf.get(gone) === this.next) this.slotOf.delete(gone);
      this.ring[this.next] = hash;
    } else this.ring.push(hash);
    this.slotOf.set(hash, this.next);
    this.next = (this.next + 1) % this.size;
  }
}

/** FNV-1a over the UTF-16 code units, cut to 30 bits: a small integer, a Map key without a heap number. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}
