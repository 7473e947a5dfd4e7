/**
 * Sample "photos" for the before/after examples of docs/engines.md.
 *
 * No real listing photo may be copied into the repository (rights, owners' privacy) and the docs are
 * built offline, so the scenes are computed: a small pinhole camera projects boxes and planes into an
 * SVG that sharp renders, then seeded grain and vignetting keep it from reading as flat vector art.
 * Every random choice comes from a seeded generator so regenerating the docs produces no diff.
 * No text anywhere: fonts differ from machine to machine and would break the byte-for-byte promise.
 */
import sharp from 'sharp';

export interface Scenes {
  salon: Buffer;
  pieceVide: Buffer;
  facadeHiver: Buffer;
}

const [LARGEUR, HAUTEUR] = [960, 640];
type V3 = readonly [number, number, number];
type P2 = readonly [number, number];
type Rgb = readonly [number, number, number];

/** mulberry32: Math.random cannot be seeded. */
const hasard = (graine: number) => () => {
  graine = (graine + 0x6d2b79f5) >>> 0;
  let t = Math.imul(graine ^ (graine >>> 15), graine | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const teinte = (c: Rgb, k = 1): string => `rgb(${c.map((v) => Math.max(0, Math.min(255, Math.round(v * k)))).join(',')})`;
const mul = (c: Rgb, k: number): Rgb => [c[0] * k, c[1] * k, c[2] * k];

/** Andrew's monotone chain: a cylinder's outline is the hull of its two projected circles. */
const enveloppe = (p: P2[]): P2[] => {
  const tri = [...p].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const x = (o: P2, a: P2, b: P2) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const demi = (q: P2[], h: P2[] = []) => {
    for (const pt of q) for (h.push(pt); h.length > 2 && x(h[h.length - 3]!, h[h.length - 2]!, pt) <= 0;) h.splice(-2, 1);
    return h.slice(0, -1);
  };
  return [...demi(tri), ...demi(tri.reverse())];
};

/** Soft light from above and from behind the photographer, as in a bracketed listing shot. */
const LUMIERE: V3 = [0.3, 0.8, -0.52];

class Toile {
  readonly defs: string[] = [];
  readonly corps: string[] = [];
  private readonly memo = new Map<string, string>();
  constructor(
    readonly pos: V3,
    readonly lacet: number,
    readonly f: number,
    readonly cy: number,
  ) {}

  versCamera([x, y, z]: V3): V3 {
    const dx = x - this.pos[0],
      dz = z - this.pos[2],
      c = Math.cos(this.lacet),
      s = Math.sin(this.lacet);
    return [dx * c - dz * s, y - this.pos[1], dx * s + dz * c];
  }
  ecran = (q: V3): P2 => [LARGEUR / 2 + (this.f * q[0]) / q[2], this.cy - (this.f * q[1]) / q[2]];
  /** Clipped against a near plane: the floor runs under the camera. */
  projeter(poly: readonly V3[]): P2[] {
    const q = poly.map((p) => this.versCamera(p)),
      PRES = 0.05;
    return q.flatMap((a, i) => {
      const b = q[(i + 1) % q.length]!,
        t = (PRES - a[2]) / (b[2] - a[2]),
        coupe: V3 = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), PRES];
      return [...(a[2] >= PRES ? [this.ecran(a)] : []), ...(a[2] >= PRES !== b[2] >= PRES ? [this.ecran(coupe)] : [])];
    });
  }
  static points = (p: readonly P2[]) => p.map(([u, v]) => `${u.toFixed(1)},${v.toFixed(1)}`).join(' ');
  ajouter = (s: string) => this.corps.push(s);
  poly = (p: readonly V3[], fill: string, attrs = '') => this.ajouter(`<polygon points="${Toile.points(this.projeter(p))}" fill="${fill}" ${attrs}/>`);
  ligne = (p: readonly V3[], stroke: string, largeur: number, attrs = '') =>
    this.ajouter(
      `<polyline points="${Toile.points(this.projeter(p))}" fill="none" stroke="${stroke}" stroke-width="${largeur}" stroke-linecap="round" ${attrs}/>`,
    );
  /** Registers a definition (gradient, filter, clip) once and returns its url(#…). */
  def(balise: string, contenu: string, attrs = ''): string {
    const cle = `${balise} ${attrs} ${contenu}`,
      id = `d${this.memo.size}`;
    if (!this.memo.has(cle)) {
      this.defs.push(`<${balise} id="${id}" ${attrs}>${contenu}</${balise}>`);
      this.memo.set(cle, `url(#${id})`);
    }
    return this.memo.get(cle)!;
  }
  degrade(arrets: readonly Rgb[], x2 = 0, y2 = 1, opacite: readonly number[] = []): string {
    const stops = arrets.map((c, i) => `<stop offset="${(i / (arrets.length - 1)).toFixed(3)}" stop-color="${teinte(c)}" stop-opacity="${opacite[i] ?? 1}"/>`);
    return this.def('linearGradient', stops.join(''), `x1="0" y1="0" x2="${x2}" y2="${y2}"`);
  }
  filtre = (contenu: string) => `filter="${this.def('filter', contenu, 'x="-50%" y="-50%" width="200%" height="200%"')}"`;
  flou = (s: number) => this.filtre(`<feGaussianBlur stdDeviation="${s}"/>`);
  decoupe = (p: readonly V3[]) => `clip-path="${this.def('clipPath', `<polygon points="${Toile.points(this.projeter(p))}"/>`)}"`;
  /** Local frame of a piece of furniture or a wall: origin, then a turn about the vertical. */
  repere(o: V3, rot: number) {
    const c = Math.cos(rot),
      s = Math.sin(rot);
    return (x: number, y: number, z: number): V3 => [o[0] + x * c + z * s, o[1] + y, o[2] - x * s + z * c];
  }
  /** A face drawn only when it looks at the camera, shaded by its normal, darker towards its foot. */
  face(p: readonly V3[], n: V3, c: Rgb, attrs = '', bord = 1) {
    const a = p[0]!;
    if (n[0] * (this.pos[0] - a[0]) + n[1] * (this.pos[1] - a[1]) + n[2] * (this.pos[2] - a[2]) <= 0) return;
    const k = 0.6 + 0.4 * Math.max(0, n[0] * LUMIERE[0] + n[1] * LUMIERE[1] + n[2] * LUMIERE[2]);
    const fill = n[1] > 0.5 ? teinte(c, k * 1.04) : this.degrade([mul(c, k * 1.04), mul(c, k * 0.92), mul(c, k * 0.74)]);
    this.poly(p, fill, `stroke="${fill}" stroke-width="${bord}" stroke-linejoin="round" ${attrs}`);
  }
  boite(o: V3, rot: number, a: V3, b: V3, c: Rgb, attrs = '', bord = 1) {
    const m = this.repere(o, rot),
      [x0, y0, z0] = a,
      [x1, y1, z1] = b;
    const n = (x: number, y: number, z: number): V3 => {
      const q = m(x, y, z);
      return [q[0] - o[0], q[1] - o[1], q[2] - o[2]];
    };
    this.face([m(x0, y0, z1), m(x1, y0, z1), m(x1, y1, z1), m(x0, y1, z1)], n(0, 0, 1), c, attrs, bord);
    this.face([m(x0, y0, z0), m(x0, y0, z1), m(x0, y1, z1), m(x0, y1, z0)], n(-1, 0, 0), c, attrs, bord);
    this.face([m(x1, y0, z0), m(x1, y0, z1), m(x1, y1, z1), m(x1, y1, z0)], n(1, 0, 0), c, attrs, bord);
    this.face([m(x0, y0, z0), m(x1, y0, z0), m(x1, y1, z0), m(x0, y1, z0)], n(0, 0, -1), c, attrs, bord);
    this.face([m(x0, y1, z0), m(x1, y1, z0), m(x1, y1, z1), m(x0, y1, z1)], n(0, 1, 0), c, attrs, bord);
  }
  cylindre(o: V3, r0: number, r1: number, h: number, c: Rgb, attrs = '') {
    const cercle = (r: number, y: number) => Array.from({ length: 32 }, (_, i): V3 => [o[0] + r * Math.cos(i / 5.09), o[1] + y, o[2] + r * Math.sin(i / 5.09)]);
    const haut = cercle(r1, h),
      contour = enveloppe([...cercle(r0, 0), ...haut].map((p) => this.ecran(this.versCamera(p))));
    this.ajouter(
      `<polygon points="${Toile.points(contour)}" fill="${this.degrade([mul(c, 0.62), mul(c, 1.04), mul(c, 0.84), mul(c, 0.55)], 1, 0)}" ${attrs}/>`,
    );
    if (this.pos[1] > o[1] + h) this.poly(haut, teinte(c, 1.08), attrs);
  }
  /** Fractal noise darkening the shape it is applied to: plaster, fabric, wool, render. */
  texture = (frequence: string, force: number, graine = 1) =>
    this.filtre(
      `<feTurbulence type="fractalNoise" baseFrequency="${frequence}" numOctaves="3" seed="${graine}"/><feColorMatrix type="matrix" values="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 ${-force} 0 0 0 ${force * 0.55}"/>` +
        '<feComposite in2="SourceGraphic" operator="in"/><feMerge><feMergeNode in="SourceGraphic"/><feMergeNode/></feMerge>',
    );
  /** Leaves: thresholded noise in greens, kept inside the alpha of the shape it is applied to. */
  feuillage(graine: number, frequence: number, [r, g, b]: Rgb, flou: number): string {
    const o = (x: number) => (x / 255 - 0.25).toFixed(3);
    return this.filtre(
      `<feTurbulence type="fractalNoise" baseFrequency="${frequence}" numOctaves="4" seed="${graine}"/><feColorMatrix type="matrix" values="0.5 0 0 0 ${o(r)} 0.5 0 0 0 ${o(g)} 0.5 0 0 0 ${o(b)} 0 0 0 16 -7.4"/>` +
        `<feComposite in2="SourceGraphic" operator="in"/><feGaussianBlur stdDeviation="${flou}"/>`,
    );
  }
  ombre = (p: readonly V3[], flou: number, opacite: number) => this.poly(p, 'rgb(20,14,8)', `opacity="${opacite}" ${this.flou(flou)}`);
  svg(): string {
    return `<svg xmlns="http://www.w3.org/2000/svg" color-interpolation-filters="sRGB" width="${LARGEUR}" height="${HAUTEUR}" viewBox="0 0 ${LARGEUR} ${HAUTEUR}"><defs>${this.defs.join('')}</defs>${this.corps.join('')}</svg>`;
  }
}

/** The living room's geometry, in metres: x to the right, y up, z away from the camera; the window is on the back wall. */
const [W, D, HT, F] = [6.3, 5.2, 2.6, { x0: 0.7, x1: 2.45, y0: 0.55, y1: 2.3 }] as const;
const cameraSalon = () => new Toile([4.6, 1.3, 0.5], -0.415, 560, 305);
/** Where each piece stands (origin of its frame) and how far it extends in it: what the scene draws and the truth of the tests. */
const CANAPE = { o: [3.1, 0, D - 1.0] as V3, rot: 0, a: [0, 0, 0] as V3, b: [2.2, 0.88, 0.98] as V3 };
const FAUTEUIL = { o: [1.45, 0, 3.55] as V3, rot: -0.8, a: [-0.4, 0, -0.38] as V3, b: [0.4, 0.86, 0.38] as V3 };
const TABLE_BASSE = { o: [3.6, 0, 3.2] as V3, rot: 0, a: [0, 0, 0] as V3, b: [1.2, 0.42, 0.6] as V3 };
const TABLEAU = { o: [3.7, 1.16, D - 0.03] as V3, rot: 0, a: [0, 0, 0] as V3, b: [1.1, 0.52, 0.03] as V3 };
const TAPIS = { o: [2.7, 0, 2.5] as V3, rot: 0, a: [0, 0, 0] as V3, b: [2.5, 0.006, 2.4] as V3 };
const RADIATEUR = { o: [F.x0 + 0.15, 0.14, D - 0.1] as V3, rot: 0, a: [0, 0, 0] as V3, b: [F.x1 - F.x0 - 0.3, 0.34, 0.07] as V3 };
/** The window with its frame, reveal and sill. */
const FENETRE = { o: [F.x0 - 0.06, F.y0 - 0.04, D - 0.05] as V3, rot: 0, a: [0, 0, 0] as V3, b: [F.x1 - F.x0 + 0.12, F.y1 - F.y0 + 0.04, 0.27] as V3 };
/** Pot, and the foliage's ball above it (centre height, radius). */
const PLANTE = { o: [0.7, 0, 3.0] as V3, pot: 0.2, hauteurPot: 0.42, feuillage: 0.88, rayon: 0.34 };
/** Base, pole and shade (the shade's foot: radius and height; its own height). */
const LAMPE = { o: [2.75, 0, D - 0.38] as V3, abat: 0.23, pied: 1.24, hauteurAbat: 0.3 };

/** The same room twice, so that "before" and "after" differ only by what our tools are meant to change. */
const salon = (meuble: boolean): string => {
  const t = cameraSalon(),
    rnd = hasard(1789);
  const MUR: Rgb = [236, 231, 222],
    platre = t.texture('0.9', 0.12, 3);
  t.poly(
    [
      [0, HT, 0],
      [W, HT, 0],
      [W, HT, D],
      [0, HT, D],
    ],
    t.degrade([mul(MUR, 0.7), mul(MUR, 0.88)]),
  );
  t.poly(
    [
      [0, 0, D],
      [W, 0, D],
      [W, HT, D],
      [0, HT, D],
    ],
    t.degrade([mul(MUR, 1.0), mul(MUR, 0.93), mul(MUR, 0.8)], 1, 0),
    platre,
  );
  t.poly(
    [
      [0, 0, 0],
      [0, 0, D],
      [0, HT, D],
      [0, HT, 0],
    ],
    t.degrade([mul(MUR, 0.66), mul(MUR, 0.88)], 1, 0),
    platre,
  );
  // Oak planks, staggered joints, faint grain.
  t.ajouter(`<g ${t.texture('0.35 0.04', 0.18, 5)}>`);
  for (let x = 0; x < W; x += 0.15) {
    for (let z = -rnd() * 1.6; z < D;) {
      const z1 = Math.min(D, z + 1 + rnd() * 1.1),
        k = 0.9 + rnd() * 0.16,
        c: Rgb = [196 * k, 158 * k * (0.98 + rnd() * 0.04), 118 * k];
      const z0 = Math.max(z, 0),
        xe = Math.min(x + 0.15, W);
      t.poly(
        [
          [x, 0, z0],
          [xe, 0, z0],
          [xe, 0, z1],
          [x, 0, z1],
        ],
        teinte(c),
        `stroke="${teinte(c, 0.7)}" stroke-width="0.6"`,
      );
      const gx = x + 0.03 + rnd() * 0.09;
      t.ligne(
        [
          [gx, 0, z0 + 0.05],
          [gx + (rnd() - 0.5) * 0.03, 0, z1 - 0.05],
        ],
        teinte(c, 0.85),
        0.6,
        'opacity="0.3"',
      );
      z = z1;
    }
  }
  t.ajouter(
    `</g><g ${t.decoupe([
      [0, 0, 0],
      [W, 0, 0],
      [W, 0, D],
      [0, 0, D],
    ])}>`,
  );
  t.poly(
    [
      [0, 0, 0],
      [W, 0, 0],
      [W, 0, D],
      [0, 0, D],
    ],
    t.degrade(
      [
        [40, 30, 20],
        [0, 0, 0],
      ],
      1,
      0,
      [0.3, 0],
    ),
  );
  // Sky light on a satin floor: a pool under the window and its blurred reflection.
  t.poly(
    [
      [F.x0, 0, D],
      [F.x1, 0, D],
      [F.x1 + 0.8, 0, D - 2.2],
      [F.x0 + 0.8, 0, D - 2.2],
    ],
    'rgb(255,248,232)',
    `opacity="0.3" ${t.flou(14)}`,
  );
  t.poly(
    [
      [F.x0, -F.y0, D],
      [F.x1, -F.y0, D],
      [F.x1, -F.y1, D],
      [F.x0, -F.y1, D],
    ],
    'rgb(250,250,246)',
    `opacity="0.25" ${t.flou(6)}`,
  );
  t.ajouter('</g>');
  // Skirting boards, then the shadow where planes meet.
  t.poly(
    [
      [0, 0, D - 0.015],
      [W, 0, D - 0.015],
      [W, 0.1, D - 0.015],
      [0, 0.1, D - 0.015],
    ],
    teinte(MUR, 0.92),
  );
  t.poly(
    [
      [0.015, 0, 0],
      [0.015, 0, D],
      [0.015, 0.1, D],
      [0.015, 0.1, 0],
    ],
    teinte(MUR, 0.76),
  );
  for (const arete of [
    [
      [0, 0, 0],
      [0, 0, D],
      [W, 0, D],
    ],
    [
      [0, HT, 0],
      [0, HT, D],
      [W, HT, D],
    ],
    [
      [0, 0, D],
      [0, HT, D],
    ],
  ] as V3[][])
    t.ligne(arete, 'rgb(70,55,40)', 18, `opacity="0.2" ${t.flou(10)}`);
  for (const [x, z] of [
    [1.6, 2.6],
    [4.2, 2.6],
    [4.2, 4.4],
  ] as const)
    t.poly(
      Array.from({ length: 16 }, (_, i): V3 => [x + 0.06 * Math.cos(i / 2.55), HT - 0.002, z + 0.06 * Math.sin(i / 2.55)]),
      'rgb(252,250,244)',
      'stroke="rgb(200,198,192)" stroke-width="0.8"',
    );
  // Window: bright view, recess, white frame, sill, radiator below.
  const vitre: V3[] = [
      [F.x0, F.y0, D],
      [F.x1, F.y0, D],
      [F.x1, F.y1, D],
      [F.x0, F.y1, D],
    ],
    [[ua, va], , [ub, vb]] = t.projeter(vitre) as [P2, P2, P2, P2];
  t.ajouter(`<ellipse cx="${(ua + ub) / 2}" cy="${(va + vb) / 2}" rx="${ub - ua}" ry="${va - vb}" fill="rgb(255,252,242)" opacity="0.4" ${t.flou(45)}/>`);
  t.poly(
    vitre,
    t.degrade([
      [212, 226, 240],
      [234, 240, 245],
      [246, 247, 244],
    ]),
  );
  const vue = t.decoupe(vitre);
  // Foliage outside, a little overexposed as through any window shot from indoors.
  for (const [graine, freq, c, haut] of [
    [9, 0.025, [168, 190, 146], 0],
    [5, 0.04, [120, 150, 96], 0.3],
  ] as const)
    t.ajouter(
      `<rect x="${ua}" y="${vb}" width="${ub - ua}" height="${va - vb}" fill="${t.degrade(
        [
          [0, 0, 0],
          [0, 0, 0],
          [0, 0, 0],
        ],
        0,
        1,
        [haut, 1, 1],
      )}" ${t.feuillage(graine, freq, c, 1.4)} ${vue}/>`,
    );
  t.poly(vitre, 'rgb(250,250,246)', 'opacity="0.2"');
  const R = 0.22,
    bois = 'rgb(246,245,241)',
    mx = (F.x0 + F.x1) / 2,
    zf = D + R - 0.03;
  t.poly(
    [
      [F.x0, F.y0, D],
      [F.x0, F.y0, D + R],
      [F.x0, F.y1, D + R],
      [F.x0, F.y1, D],
    ],
    teinte(MUR, 0.8),
  );
  t.poly(
    [
      [F.x0, F.y1, D],
      [F.x1, F.y1, D],
      [F.x1, F.y1, D + R],
      [F.x0, F.y1, D + R],
    ],
    teinte(MUR, 0.72),
  );
  for (const [x0, x1, y0, y1] of [
    [F.x0, F.x0 + 0.07, F.y0, F.y1],
    [F.x1 - 0.07, F.x1, F.y0, F.y1],
    [F.x0, F.x1, F.y1 - 0.07, F.y1],
    [F.x0, F.x1, F.y0, F.y0 + 0.08],
    [mx - 0.05, mx + 0.05, F.y0, F.y1],
  ] as const)
    t.poly(
      [
        [x0, y0, zf],
        [x1, y0, zf],
        [x1, y1, zf],
        [x0, y1, zf],
      ],
      bois,
      `stroke="rgb(196,194,188)" stroke-width="0.8" ${vue}`,
    );
  t.boite([F.x0 - 0.06, F.y0 - 0.04, D - 0.05], 0, [0, 0, 0], [F.x1 - F.x0 + 0.12, 0.04, R + 0.05], [244, 242, 236]);
  t.ombre(
    [
      [F.x0 + 0.1, 0.1, D - 0.01],
      [F.x1 - 0.1, 0.1, D - 0.01],
      [F.x1 - 0.1, 0.52, D - 0.01],
      [F.x0 + 0.1, 0.52, D - 0.01],
    ],
    5,
    0.25,
  );
  t.boite([F.x0 + 0.15, 0.14, D - 0.1], 0, [0, 0, 0], [F.x1 - F.x0 - 0.3, 0.34, 0.07], [240, 238, 232]);
  for (let x = F.x0 + 0.2; x < F.x1 - 0.15; x += 0.045)
    t.ligne(
      [
        [x, 0.16, D - 0.1],
        [x, 0.46, D - 0.1],
      ],
      'rgb(190,186,180)',
      0.8,
    );

  // Furniture stays within 38–100% of the height and 3–97% of the width: the only area the removal and staging tools edit.
  if (meuble) {
    // Picture over the sofa with its drop shadow; the lamp's warm glow on the wall.
    const zc = TABLEAU.o[2];
    t.poly(
      [
        [3.73, 1.12, D],
        [4.83, 1.12, D],
        [4.83, 1.66, D],
        [3.73, 1.66, D],
      ],
      'rgb(40,30,20)',
      `opacity="0.3" ${t.flou(4)}`,
    );
    t.boite(TABLEAU.o, TABLEAU.rot, TABLEAU.a, TABLEAU.b, [52, 44, 38]);
    t.poly(
      [
        [3.76, 1.22, zc],
        [4.74, 1.22, zc],
        [4.74, 1.62, zc],
        [3.76, 1.62, zc],
      ],
      t.degrade([
        [220, 204, 176],
        [200, 160, 120],
        [128, 134, 122],
        [78, 90, 92],
      ]),
    );
    const [lu, lv] = t.ecran(t.versCamera([2.75, 1.1, D]));
    t.ajouter(`<ellipse cx="${lu}" cy="${lv}" rx="60" ry="80" fill="rgb(255,216,160)" opacity="0.22" ${t.flou(22)}/>`);
    // Potted plant in the corner.
    t.ombre(
      [
        [0.45, 0.01, 2.7],
        [0.95, 0.01, 2.7],
        [0.95, 0.01, 3.3],
        [0.45, 0.01, 3.3],
      ],
      6,
      0.5,
    );
    t.cylindre(PLANTE.o, 0.15, PLANTE.pot, PLANTE.hauteurPot, [92, 90, 88]);
    const plante = t.versCamera([PLANTE.o[0], PLANTE.feuillage, PLANTE.o[2]]),
      [pu, pv] = t.ecran(plante),
      r = (PLANTE.rayon * t.f) / plante[2];
    const touffe = t.def('radialGradient', '<stop offset="0.55"/><stop offset="1" stop-opacity="0"/>');
    t.ajouter(`<ellipse cx="${pu}" cy="${pv}" rx="${r * 0.8}" ry="${r * 1.2}" fill="${touffe}" opacity="0.7"/>`);
    for (const [g, c, d] of [
      [21, [40, 74, 36], 0],
      [22, [74, 116, 56], -3],
    ] as const)
      t.ajouter(`<ellipse cx="${pu + d}" cy="${pv + d}" rx="${r}" ry="${r * 1.5}" fill="${touffe}" ${t.feuillage(g, 0.07, c, 0.5)}/>`);
    // Wool rug with a border.
    t.poly(
      [
        [2.7, 0.005, 2.5],
        [5.2, 0.005, 2.5],
        [5.2, 0.005, 4.9],
        [2.7, 0.005, 4.9],
      ],
      'rgb(146,134,118)',
      t.texture('0.8', 0.3, 7),
    );
    t.poly(
      [
        [2.82, 0.006, 2.62],
        [5.08, 0.006, 2.62],
        [5.08, 0.006, 4.9],
        [2.82, 0.006, 4.9],
      ],
      t.degrade(
        [
          [198, 190, 176],
          [182, 174, 160],
        ],
        1,
        0,
      ),
      t.texture('0.7', 0.35, 8),
    );
    // Sofa against the back wall.
    const TISSU: Rgb = [122, 130, 136],
      so = CANAPE.o,
      doux = `${t.flou(0.8)}`;
    t.poly(
      [
        [3.1, 0, D - 0.005],
        [5.3, 0, D - 0.005],
        [5.3, 1.0, D - 0.005],
        [3.1, 1.0, D - 0.005],
      ],
      'rgb(30,25,20)',
      `opacity="0.3" ${t.flou(10)}`,
    );
    t.ombre(
      [
        [3.05, 0.01, D - 1.1],
        [5.35, 0.01, D - 1.1],
        [5.35, 0.01, D],
        [3.05, 0.01, D],
      ],
      6,
      0.6,
    );
    t.ajouter(`<g ${t.texture('1.1', 0.25, 9)}>`);
    for (const x of [0.06, 2.1]) t.boite(so, 0, [x, 0, 0.1], [x + 0.04, 0.09, 0.14], [40, 32, 26]);
    t.boite(so, 0, [0, 0.09, 0], [2.2, 0.42, 0.98], mul(TISSU, 0.9), doux, 4);
    t.boite(so, 0, [0, 0.42, 0.74], [2.2, 0.88, 0.98], TISSU, doux, 4);
    for (const x of [0.2, 1.1]) t.boite(so, 0, [x + 0.01, 0.52, 0.56], [x + 0.89, 0.84, 0.76], mul(TISSU, 1.06), doux, 4);
    t.boite(so, 0.08, [0.3, 0.5, 0.5], [0.72, 0.84, 0.64], [196, 152, 72], doux, 4);
    t.boite(so, -0.1, [1.5, 0.5, 0.52], [1.92, 0.83, 0.66], [170, 96, 70], doux, 4);
    for (const x of [0.2, 1.1]) t.boite(so, 0, [x + 0.01, 0.42, 0.02], [x + 0.89, 0.55, 0.74], mul(TISSU, 1.08), doux, 4);
    for (const x of [0, 2.0]) t.boite(so, 0, [x, 0.42, 0], [x + 0.2, 0.66, 0.98], TISSU, doux, 4);
    t.ajouter('</g>');
    // Floor lamp, lit, between the window and the sofa.
    t.ombre(
      [
        [2.55, 0.01, D - 0.55],
        [2.95, 0.01, D - 0.55],
        [2.95, 0.01, D - 0.2],
        [2.55, 0.01, D - 0.2],
      ],
      5,
      0.5,
    );
    t.cylindre(LAMPE.o, 0.15, 0.14, 0.03, [40, 38, 36]);
    t.cylindre(LAMPE.o, 0.012, 0.012, 1.3, [60, 56, 50]);
    t.cylindre([LAMPE.o[0], LAMPE.pied, LAMPE.o[2]], LAMPE.abat, 0.16, LAMPE.hauteurAbat, [252, 238, 210]);
    // Armchair, turned towards the table.
    const CUIR: Rgb = [150, 94, 58],
      fa = FAUTEUIL.o,
      rot = FAUTEUIL.rot,
      fm = t.repere(fa, rot);
    t.ombre([fm(-0.5, 0.01, -0.45), fm(0.5, 0.01, -0.45), fm(0.5, 0.01, 0.5), fm(-0.5, 0.01, 0.5)], 8, 0.5);
    for (const [x, z] of [
      [-0.36, -0.34],
      [0.32, -0.34],
      [-0.36, 0.3],
      [0.32, 0.3],
    ] as const)
      t.boite(fa, rot, [x, 0, z], [x + 0.04, 0.12, z + 0.04], [35, 28, 22]);
    t.ajouter(`<g ${t.texture('0.6', 0.2, 10)}>`);
    t.boite(fa, rot, [-0.4, 0.12, 0.2], [0.4, 0.86, 0.38], CUIR, doux, 4);
    t.boite(fa, rot, [-0.4, 0.12, -0.38], [0.4, 0.38, 0.2], mul(CUIR, 0.92), doux, 4);
    t.boite(fa, rot, [-0.26, 0.38, -0.36], [0.26, 0.47, 0.2], mul(CUIR, 1.08), doux, 4);
    for (const x of [-0.4, 0.26]) t.boite(fa, rot, [x, 0.12, -0.38], [x + 0.14, 0.62, 0.38], CUIR, doux, 4);
    t.ajouter('</g>');
    // Coffee table with a few things on it.
    const ta = TABLE_BASSE.o;
    t.ombre(
      [
        [3.55, 0.01, 3.1],
        [4.85, 0.01, 3.1],
        [4.85, 0.01, 3.85],
        [3.55, 0.01, 3.85],
      ],
      7,
      0.55,
    );
    for (const [x, z] of [
      [0.03, 0.03],
      [1.12, 0.03],
      [0.03, 0.52],
      [1.12, 0.52],
    ] as const)
      t.boite(ta, 0, [x, 0, z], [x + 0.04, 0.38, z + 0.04], [34, 30, 28]);
    t.boite(ta, 0, [0, 0.38, 0], [1.2, 0.42, 0.6], [136, 96, 64]);
    t.boite(ta, 0.2, [0.2, 0.42, 0.15], [0.5, 0.46, 0.38], [232, 228, 218]);
    t.boite(ta, 0.25, [0.22, 0.46, 0.17], [0.46, 0.48, 0.35], [70, 96, 110]);
    t.cylindre([4.45, 0.42, 3.5], 0.07, 0.05, 0.22, [222, 218, 208]);
  }
  return t.svg();
};

/** Bare tree in screen space: a trunk, four limbs, then a leader and side shoots down to fine twigs. */
const arbre = (rnd: () => number, u: number, v: number, hauteur: number, epaisseur: number, niveaux: number, c: Rgb, plafond = 0): string => {
  const traits: [number, number, number, number, number][] = [];
  const pousse = (x: number, y: number, a: number, long: number, w: number, niveau: number) => {
    for (let k = 0; k < 4; k++) {
      a = a * 0.97 + (rnd() - 0.5) * 0.32;
      const nx = x + (Math.sin(a) * long) / 4,
        ny = y - (Math.cos(a) * long) / 4;
      traits.push([x, y, nx, ny, w * (1 - k * 0.07)]);
      [x, y] = [nx, ny];
    }
    if (niveau === 0) {
      for (const b of [0, 1, 2].map(() => a + (rnd() - 0.5) * 1.6)) traits.push([x, y, x + Math.sin(b) * long * 0.4, y - Math.cos(b) * long * 0.4, 0.4]);
      return;
    }
    const tronc = niveau === niveaux,
      n = tronc ? 4 : rnd() < 0.6 ? 2 : 3;
    for (let i = 0; i < n; i++) {
      const meneur = !tronc && i === 0,
        ecart = tronc ? (i - 1.5) * 0.42 : meneur ? 0 : (i % 2 ? 1 : -1) * (0.4 + rnd() * 0.5);
      pousse(x, y, a + ecart + (rnd() - 0.5) * 0.2, long * (meneur ? 0.82 : 0.58 + rnd() * 0.2), w * (meneur ? 0.74 : 0.52), niveau - 1);
    }
  };
  pousse(u, v, (rnd() - 0.5) * 0.1, hauteur * 0.24, epaisseur, niveaux);
  const haut = traits.reduce((m, s) => Math.min(m, s[1], s[3]), v),
    k = haut < plafond ? (v - plafond) / (v - haut) : 1;
  const parLargeur = new Map<number, string[]>(),
    q = (a: number, o: number) => (o + (a - o) * k).toFixed(1);
  for (const [x0, y0, x1, y1, w] of traits) {
    const l = Math.max(0.4, Math.round(w * Math.sqrt(k) * 2) / 2);
    parLargeur.set(l, [...(parLargeur.get(l) ?? []), `M${q(x0, u)} ${q(y0, v)}L${q(x1, u)} ${q(y1, v)}`]);
  }
  return [...parLargeur]
    .map(
      ([l, d]) =>
        `<path d="${d.join('')}" fill="none" stroke="${teinte(c, l < 1 ? 1.4 : 1)}" stroke-opacity="${l < 1 ? 0.6 : 1}" stroke-width="${l}" stroke-linecap="round"/>`,
    )
    .join('');
};

const facade = (): string => {
  const t = new Toile([17, 1.6, -18], -0.46, 700, 444),
    rnd = hasard(1954);
  const NEIGE: Rgb = [240, 242, 245],
    ENDUIT: Rgb = [226, 215, 194],
    S = 13,
    e = 5.2,
    faite = 7.9,
    PENTE = (faite - e) / 4.4;
  t.ajouter(
    `<rect width="${LARGEUR}" height="${HAUTEUR}" fill="${t.degrade([
      [202, 204, 207],
      [214, 215, 217],
      [224, 224, 225],
    ])}"/>`,
  );
  // Distant woods in the haze, then the snowfield with its drifts.
  t.ajouter(
    `<rect x="0" y="${t.cy - 28}" width="${LARGEUR}" height="34" fill="rgb(160,155,152)" opacity="0.3" ${t.flou(9)}/><g ${t.flou(1.1)} opacity="0.45">`,
  );
  for (let u = -20; u < LARGEUR + 20; u += 5 + rnd() * 14) t.ajouter(arbre(rnd, u, t.cy + 4, 30 + rnd() * 70, 1.8, 3, [112, 106, 104]));
  t.ajouter('</g>');
  t.poly(
    [
      [-300, 0, -17.9],
      [300, 0, -17.9],
      [300, 0, 500],
      [-300, 0, 500],
    ],
    t.degrade([
      [216, 220, 226],
      [232, 235, 239],
      [247, 248, 250],
    ]),
  );
  const congeres = t.filtre(
    '<feTurbulence type="fractalNoise" baseFrequency="0.004 0.035" numOctaves="3" seed="4"/><feColorMatrix type="matrix" values="0 0 0 0 0.55 0 0 0 0 0.6 0 0 0 0 0.68 3.4 0 0 0 -1.5"/><feComposite in2="SourceGraphic" operator="in"/>',
  );
  t.ajouter(`<rect x="0" y="${t.cy + 3}" width="${LARGEUR}" height="${HAUTEUR - t.cy}" ${congeres} opacity="0.4"/>`);
  // Dry grass poking through the snow; the house and the path will hide what lies behind them.
  for (let i = 0, u = 0, v = 0; i < 110; i++) {
    if (i % 5 === 0) [u, v] = [rnd() * LARGEUR, t.cy + 8 + (HAUTEUR - t.cy) * rnd() ** 0.6];
    [u, v] = [u + (rnd() - 0.5) * 40, Math.min(HAUTEUR, v + (rnd() - 0.5) * 10)];
    const pr = (v - t.cy) / (HAUTEUR - t.cy),
      brins = Array.from({ length: 3 + Math.floor(rnd() * 5) }, () => [u + (rnd() - 0.5) * 14 * pr, (2 + rnd() * 8) * pr] as const).map(
        ([x, h]) => `M${x.toFixed(1)} ${v.toFixed(1)}l${((rnd() - 0.5) * h).toFixed(1)} ${(-h).toFixed(1)}`,
      );
    t.ajouter(
      `<path d="${brins.join('')}" stroke="${teinte([112, 100, 72], 0.7 + rnd() * 0.5)}" stroke-width="${(0.4 + 0.8 * pr).toFixed(1)}" opacity="0.5" fill="none"/>`,
    );
  }
  // House: walls, soffit, openings, roof under snow, chimney.
  const enduit = t.texture('0.7', 0.14, 6);
  t.ombre(
    [
      [-0.5, 0, -0.6],
      [S + 0.6, 0, -0.6],
      [S + 0.6, 0, 8.5],
      [-0.5, 0, 8.5],
    ],
    6,
    0.35,
  );
  t.poly(
    [
      [0, 0, 0],
      [S, 0, 0],
      [S, e, 0],
      [0, e, 0],
    ],
    t.degrade([mul(ENDUIT, 0.8), mul(ENDUIT, 0.93), mul(ENDUIT, 0.9)]),
    enduit,
  );
  t.poly(
    [
      [S, 0, 0],
      [S, 0, 8],
      [S, e, 8],
      [S, faite - 0.2, 4],
      [S, e, 0],
    ],
    t.degrade([mul(ENDUIT, 0.72), mul(ENDUIT, 0.78)]),
    enduit,
  );
  t.poly(
    [
      [0, 0, -0.01],
      [S, 0, -0.01],
      [S, 0.45, -0.01],
      [0, 0.45, -0.01],
    ],
    'rgb(150,146,140)',
  );
  t.poly(
    [
      [S + 0.01, 0, 0],
      [S + 0.01, 0, 8],
      [S + 0.01, 0.45, 8],
      [S + 0.01, 0.45, 0],
    ],
    'rgb(128,124,120)',
  );
  t.poly(
    [
      [-0.35, e, -0.4],
      [S + 0.35, e, -0.4],
      [S, e, 0],
      [0, e, 0],
    ],
    'rgb(112,104,96)',
  );
  t.poly(
    [
      [0, e - 0.7, 0],
      [S, e - 0.7, 0],
      [S, e, 0],
      [0, e, 0],
    ],
    'rgb(60,50,40)',
    `opacity="0.25" ${t.flou(5)}`,
  );
  const fenetre = (o: V3, rot: number, x0: number, x1: number, y0: number, y1: number, porte = false) => {
    const m = t.repere(o, rot),
      dir = (x: number, y: number, z: number): V3 => {
        const p = m(x, y, z);
        return [p[0] - o[0], y, p[2] - o[2]];
      };
    const trou = [m(x0, y0, 0), m(x1, y0, 0), m(x1, y1, 0), m(x0, y1, 0)],
      R = 0.16,
      clip = t.decoupe(trou);
    if (!porte)
      for (const [a, b] of [
        [x0 - (x1 - x0) / 2 - 0.04, x0 - 0.04],
        [x1 + 0.04, x1 + (x1 - x0) / 2 + 0.04],
      ] as const) {
        t.poly([m(a, y0 - 0.05, -0.03), m(b, y0 - 0.05, -0.03), m(b, y1 + 0.05, -0.03), m(a, y1 + 0.05, -0.03)], 'rgb(96,110,118)');
        for (let y = y0 + 0.08; y < y1; y += 0.09) t.ligne([m(a, y, -0.03), m(b, y, -0.03)], 'rgb(66,76,84)', 0.7);
      }
    t.poly(trou, porte ? 'rgb(58,60,64)' : t.degrade([mul([172, 176, 182], 0.85 + rnd() * 0.3), [96, 102, 110], [46, 50, 56]]));
    if (porte)
      for (const [a, b, c, d] of [
        [0.12, 0.44, 0.2, 1.0],
        [0.56, 0.88, 0.2, 1.0],
        [0.12, 0.88, 1.15, 1.85],
      ] as const)
        t.poly(
          [m(x0 + (x1 - x0) * a, y0 + c, 0.1), m(x0 + (x1 - x0) * b, y0 + c, 0.1), m(x0 + (x1 - x0) * b, y0 + d, 0.1), m(x0 + (x1 - x0) * a, y0 + d, 0.1)],
          'rgb(48,50,54)',
          'stroke="rgb(82,84,88)" stroke-width="1"',
        );
    else {
      const mx = (x0 + x1) / 2,
        z = R - 0.04;
      if (rnd() < 0.6) t.poly([m(x0, y0, R), m(x0 + 0.3, y0, R), m(x0 + 0.24, y1, R), m(x0, y1, R)], 'rgb(236,232,224)', `opacity="0.5" ${clip}`);
      for (const [a, b, c, d] of [
        [x0, x0 + 0.06, y0, y1],
        [x1 - 0.06, x1, y0, y1],
        [x0, x1, y1 - 0.06, y1],
        [x0, x1, y0, y0 + 0.07],
        [mx - 0.04, mx + 0.04, y0, y1],
        [x0, x1, (y0 + y1) / 2 - 0.02, (y0 + y1) / 2 + 0.02],
      ] as const)
        t.poly([m(a, c, z), m(b, c, z), m(b, d, z), m(a, d, z)], 'rgb(236,236,234)', clip);
      t.boite(o, rot, [x0 - 0.07, y0 - 0.07, -0.09], [x1 + 0.07, y0, 0.02], [190, 186, 178]);
      t.boite(o, rot, [x0 - 0.05, y0, -0.08], [x1 + 0.05, y0 + 0.05, 0], NEIGE, t.flou(0.5));
    }
    t.face([m(x0, y0, 0), m(x0, y0, R), m(x0, y1, R), m(x0, y1, 0)], dir(1, 0, 0), mul(ENDUIT, 0.85));
    t.face([m(x0, y1, 0), m(x1, y1, 0), m(x1, y1, R), m(x0, y1, R)], dir(0, -1, 0), mul(ENDUIT, 0.8));
  };
  for (const x of [1.7, 4.1, 8.9, 11.3]) fenetre([0, 0, 0], 0, x - 0.55, x + 0.55, 0.95, 2.3);
  for (const x of [1.7, 4.1, 6.5, 8.9, 11.3]) fenetre([0, 0, 0], 0, x - 0.55, x + 0.55, 3.3, 4.6);
  for (const y of [0.95, 3.3]) fenetre([S, 0, 0], -Math.PI / 2, 3.45, 4.55, y, y + 1.35);
  fenetre([0, 0, 0], 0, 5.95, 7.05, 0.2, 2.4, true);
  t.boite([5.6, 2.58, -0.85], 0, [0, 0, 0], [1.8, 0.1, 0.85], [80, 76, 72]);
  t.boite([5.58, 2.68, -0.87], 0, [0, 0, 0], [1.84, 0.1, 0.87], NEIGE, t.flou(0.6));
  t.boite([5.7, 0, -0.6], 0, [0, 0, 0], [1.6, 0.2, 0.6], [212, 214, 218]);
  t.poly(
    [
      [-0.3, 0, -0.5],
      [S + 0.3, 0, -0.5],
      [S + 0.3, 0.2, -0.01],
      [-0.3, 0.2, -0.01],
    ],
    teinte(NEIGE, 0.97),
    `opacity="0.85" ${t.flou(3)}`,
  );
  t.poly(
    [
      [S + 0.5, 0, 0],
      [S + 0.5, 0, 8],
      [S + 0.01, 0.2, 8],
      [S + 0.01, 0.2, 0],
    ],
    teinte(NEIGE, 0.93),
    `opacity="0.85" ${t.flou(3)}`,
  );
  const yb = e - 0.4 * PENTE,
    pied = (z: number) => yb + (z + 0.4) * PENTE;
  t.poly(
    [
      [-0.35, yb, -0.4],
      [S + 0.35, yb, -0.4],
      [S + 0.35, faite, 4],
      [-0.35, faite, 4],
    ],
    t.degrade([
      [238, 240, 243],
      [226, 229, 234],
      [206, 210, 217],
    ]),
    t.texture('0.02 0.3', 0.25, 2),
  );
  for (let z = 0.2; z < 4; z += 0.38)
    t.ligne(
      [
        [-0.35, pied(z), z],
        [S + 0.35, pied(z), z],
      ],
      'rgb(120,120,126)',
      0.8,
      `opacity="${(0.1 + rnd() * 0.12).toFixed(2)}"`,
    );
  t.poly(
    [
      [-0.35, yb - 0.3, -0.4],
      [S + 0.35, yb - 0.3, -0.4],
      [S + 0.35, yb, -0.4],
      [-0.35, yb, -0.4],
    ],
    'rgb(78,70,64)',
  );
  t.poly(
    [
      [-0.35, yb - 0.42, -0.45],
      [S + 0.35, yb - 0.42, -0.45],
      [S + 0.35, yb - 0.3, -0.45],
      [-0.35, yb - 0.3, -0.45],
    ],
    'rgb(140,142,146)',
  );
  t.poly(
    [
      [-0.35, yb, -0.42],
      [S + 0.35, yb, -0.42],
      [S + 0.35, yb + 0.16, -0.4],
      [-0.35, yb + 0.16, -0.4],
    ],
    'rgb(204,208,215)',
    t.flou(0.6),
  );
  const v = (dy: number, z: number, x = S + 0.35): V3 => [x, (z < 4 ? pied(z) : pied(8 - z)) + dy, z];
  t.poly([v(-0.3, -0.4), v(-0.3, 4), v(-0.3, 8.4), v(-0.3, 8.4, S), v(-0.3, 4, S), v(-0.3, -0.4, S)], 'rgb(104,96,90)');
  t.poly([v(-0.3, -0.4), v(-0.3, 4), v(-0.3, 8.4), v(0, 8.4), v(0, 4), v(0, -0.4)], 'rgb(70,64,58)');
  t.poly([v(0, -0.4), v(0, 4), v(0, 8.4), v(0.18, 8.4), v(0.18, 4), v(0.18, -0.4)], 'rgb(214,218,224)', t.flou(0.6));
  t.ligne(
    [
      [-0.35, faite + 0.04, 4],
      [S + 0.35, faite + 0.04, 4],
    ],
    'rgb(150,146,144)',
    2,
  );
  const [cx0, cx1, cz0, cz1, ch] = [9.2, 9.85, 3.0, 3.6, 8.6];
  t.face(
    [
      [cx0, pied(cz0), cz0],
      [cx1, pied(cz0), cz0],
      [cx1, ch, cz0],
      [cx0, ch, cz0],
    ],
    [0, 0, -1],
    [200, 188, 170],
    enduit,
  );
  t.face(
    [
      [cx1, pied(cz0), cz0],
      [cx1, pied(cz1), cz1],
      [cx1, ch, cz1],
      [cx1, ch, cz0],
    ],
    [1, 0, 0],
    [168, 156, 140],
  );
  t.boite([cx0 - 0.06, ch, cz0 - 0.06], 0, [0, 0, 0], [cx1 - cx0 + 0.12, 0.15, cz1 - cz0 + 0.12], NEIGE, t.flou(0.6));
  // Cleared stone path from the door, snow banked on both sides.
  const trace: P2[] = [
    [6.5, -0.6],
    [6.7, -4],
    [8.8, -9],
    [12, -14],
    [14.5, -18],
  ];
  for (let i = 0; i + 1 < trace.length; i++) {
    const [a, b] = [trace[i]!, trace[i + 1]!],
      lg = Math.hypot(b[0] - a[0], b[1] - a[1]),
      nx = -(b[1] - a[1]) / lg,
      nz = (b[0] - a[0]) / lg;
    const p = (s: number, c: number): V3 => [a[0] + ((b[0] - a[0]) * s) / lg + nx * c * 0.6, 0.01, a[1] + ((b[1] - a[1]) * s) / lg + nz * c * 0.6];
    for (let s = 0, s1 = 0.6; s < lg; s = s1, s1 = Math.min(lg, s + 0.6)) {
      for (const [c0, c1] of [
        [-1, 0],
        [0, 1],
      ] as const)
        t.poly(
          [p(s, c0), p(s, c1), p(s1, c1), p(s1, c0)],
          rnd() < 0.12 ? teinte(NEIGE, 0.88) : teinte([150, 148, 146], 0.88 + rnd() * 0.16),
          'stroke="rgb(122,121,120)" stroke-width="0.5"',
        );
      for (const c of [-1, 1]) {
        t.poly([p(s, c * 0.8), p(s, c), p(s1, c), p(s1, c * 0.8)], 'rgb(110,116,128)', `opacity="0.22" ${t.flou(3)}`);
        t.poly([p(s, c * (0.92 + rnd() * 0.1)), p(s, c * 1.6), p(s1, c * 1.6), p(s1, c * (0.92 + rnd() * 0.1))], teinte(NEIGE, 1.01), t.flou(3.5));
      }
    }
  }
  // Two bare trees, capped below the roofline so the sky stays one clean band along the top.
  t.ajouter(`<ellipse cx="120" cy="622" rx="70" ry="11" fill="rgb(120,125,135)" opacity="0.35" ${t.flou(6)}/>`);
  t.ajouter(arbre(rnd, 120, 622, 440, 17, 7, [50, 45, 42], 236));
  t.ajouter(`<ellipse cx="868" cy="560" rx="45" ry="8" fill="rgb(120,125,135)" opacity="0.35" ${t.flou(5)}/>`);
  t.ajouter(arbre(rnd, 868, 560, 330, 11, 7, [56, 50, 46], 240));
  return t.svg();
};

/** The camera's share: a little softness, lens falloff, and luminance grain stronger in the shadows. */
const photographier = async (svg: string, graine: number): Promise<Buffer> => {
  const { data, info } = await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).blur(0.55).raw().toBuffer({ resolveWithObject: true });
  const rnd = hasard(graine),
    sortie = Buffer.alloc(LARGEUR * HAUTEUR * 3);
  for (let y = 0; y < HAUTEUR; y++)
    for (let x = 0; x < LARGEUR; x++) {
      const i = (y * LARGEUR + x) * info.channels,
        o = (y * LARGEUR + x) * 3;
      const dx = x / LARGEUR - 0.5,
        dy = y / HAUTEUR - 0.5,
        vignette = 1 - 0.3 * (dx * dx + dy * dy);
      const l = (data[i]! + data[i + 1]! + data[i + 2]!) / 765,
        bruit = (rnd() + rnd() + rnd() - 1.5) * (3 + 5 * (1 - l));
      for (let c = 0; c < 3; c++) sortie[o + c] = Math.max(0, Math.min(255, Math.round(data[i + c]! * vignette + bruit + (rnd() - 0.5) * 1.6)));
    }
  return sharp(sortie, { raw: { width: LARGEUR, height: HAUTEUR, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
};

/** An object of a scene and its box in the rendered frame (fractions of its width and height). */
export interface BoiteScene {
  nom: string;
  nature: 'meuble' | 'fixe';
  boite: { x0: number; y0: number; x1: number; y1: number };
}

/**
 * The boxes of the living room's objects as the camera sees them: the projected corners of the very
 * volumes the scene draws, clipped to the frame; what hides part of an object does not shrink its
 * box (as with Rekognition). The truth the detector and zone tests are held to.
 */
export const boitesScenes = (): { salon: BoiteScene[]; pieceVide: BoiteScene[] } => {
  const t = cameraSalon();
  const encadrer = (points: readonly P2[]) => {
    const [us, vs] = [points.map((p) => p[0]), points.map((p) => p[1])];
    const borne = (v: number, max: number) => Math.min(1, Math.max(0, v / max));
    return {
      x0: borne(Math.min(...us), LARGEUR),
      y0: borne(Math.min(...vs), HAUTEUR),
      x1: borne(Math.max(...us), LARGEUR),
      y1: borne(Math.max(...vs), HAUTEUR),
    };
  };
  const coins = ({ o, rot, a, b }: { o: V3; rot: number; a: V3; b: V3 }): V3[] => {
    const m = t.repere(o, rot);
    return [a[0], b[0]].flatMap((x) => [a[1], b[1]].flatMap((y) => [a[2], b[2]].map((z) => m(x, y, z))));
  };
  const cercle = (c: V3, r: number): V3[] => Array.from({ length: 32 }, (_, i): V3 => [c[0] + r * Math.cos(i / 5.09), c[1], c[2] + r * Math.sin(i / 5.09)]);
  const boite = (volume: Parameters<typeof coins>[0]) => encadrer(t.projeter(coins(volume)));
  const [px, , pz] = PLANTE.o;
  const feuillage = t.versCamera([px, PLANTE.feuillage, pz]),
    [fu, fv] = t.ecran(feuillage),
    r = (PLANTE.rayon * t.f) / feuillage[2];
  // The foliage is drawn as ellipses of r × 1.5 r around its centre (one shifted 3 px up and left).
  const plante = encadrer([
    ...t.projeter([...cercle(PLANTE.o, PLANTE.pot), ...cercle([px, PLANTE.hauteurPot, pz], PLANTE.pot)]),
    [fu - r - 3, fv - 1.5 * r - 3],
    [fu + r, fv + 1.5 * r],
  ]);
  const [lx, , lz] = LAMPE.o;
  const lampe = encadrer(
    t.projeter([...cercle(LAMPE.o, 0.15), ...cercle([lx, LAMPE.pied, lz], LAMPE.abat), ...cercle([lx, LAMPE.pied + LAMPE.hauteurAbat, lz], 0.16)]),
  );
  const fixes: BoiteScene[] = [
    { nom: 'Window', nature: 'fixe', boite: boite(FENETRE) },
    { nom: 'Radiator', nature: 'fixe', boite: boite(RADIATEUR) },
  ];
  const meubles: BoiteScene[] = [
    { nom: 'Potted Plant', nature: 'meuble', boite: plante },
    { nom: 'Armchair', nature: 'meuble', boite: boite(FAUTEUIL) },
    { nom: 'Floor Lamp', nature: 'meuble', boite: lampe },
    { nom: 'Couch', nature: 'meuble', boite: boite(CANAPE) },
    { nom: 'Coffee Table', nature: 'meuble', boite: boite(TABLE_BASSE) },
    { nom: 'Rug', nature: 'meuble', boite: boite(TAPIS) },
    { nom: 'Painting', nature: 'meuble', boite: boite(TABLEAU) },
  ];
  return { salon: [...meubles, ...fixes], pieceVide: fixes };
};

/** JPEG, 960×640, quality 88, the same bytes on every run. */
export const rendreScenes = async (): Promise<Scenes> => ({
  salon: await photographier(salon(true), 11),
  pieceVide: await photographier(salon(false), 11),
  facadeHiver: await photographier(facade(), 23),
});
