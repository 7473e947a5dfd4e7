/**
 * Provenance written into every result file: made by Retouche, with which tool, and whether it is a
 * local preview. EXIF IFD0 fields survive in JPEG, PNG and WebP and are what photo tools show, so a
 * published photo still says it was edited.
 */
import sharp from 'sharp';

export interface Provenance {
  outil: string;
  apercu: boolean;
  graine: number | null;
}

export const LOGICIEL = 'Retouche (retouche.app)';

export const exifDeProvenance = (p: Provenance) => ({
  IFD0: {
    Software: LOGICIEL,
    ImageDescription: `Edited by Retouche, tool ${p.outil}${p.apercu ? ' (local preview, not the production model)' : ''}${
      p.graine === null ? '' : `, seed ${p.graine}`
    }`,
  },
});

/** IPTC digital source types (cv.iptc.org/newscodes/digitalsourcetype), as C2PA and the IPTC XMP field use them. */
export const TYPES_SOURCE = {
  /** An edit composited into the photo by a generative model. */
  compositeWithTrainedAlgorithmicMedia: 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia',
  /** The whole image rendered by a generative model. */
  trainedAlgorithmicMedia: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
  /** Synthetic elements drawn into the photo by ordinary algorithms (the local preview: no AI model). */
  compositeSynthetic: 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeSynthetic',
  /** Several captured photos merged into one (fusion: every pixel was captured by the camera, none drawn). */
  compositeCapture: 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeCapture',
} as const;

export type TypeSource = keyof typeof TYPES_SOURCE;

export interface NatureResultat {
  /** The C2PA action: an edit of the photo, or an image rendered whole. */
  action: 'c2pa.edited' | 'c2pa.created';
  source: TypeSource;
}

/**
 * How a result was made, as the law (EU AI Act, Article 50(2)) and the platforms read it. On the
 * production engine, renovation redraws the whole frame from the photo's structure (Control
 * Structure); every other tool edits part of the photo and composites it back. The local preview
 * uses no AI model at all and says so; nor does fusion, on any engine: it merges captured photos.
 */
export const natureResultat = (outil: string, apercu: boolean): NatureResultat => {
  // fusion merges the photographer's own exposures by classical processing, on either engine: an edit of captures.
  if (outil === 'fusion') return { action: 'c2pa.edited', source: 'compositeCapture' };
  if (apercu) return { action: 'c2pa.edited', source: 'compositeSynthetic' };
  if (outil === 'renovation') return { action: 'c2pa.created', source: 'trainedAlgorithmicMedia' };
  return { action: 'c2pa.edited', source: 'compositeWithTrainedAlgorithmicMedia' };
};

const echapperXml = (texte: string): string => texte.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * The IPTC "digital source type" in XMP, for readers that do not parse C2PA (portals, search
 * engines and photo tools read it), with the same description as the EXIF.
 */
export const xmpDeProvenance = (p: Provenance): string => {
  const { source } = natureResultat(p.outil, p.apercu);
  const description = exifDeProvenance(p).IFD0.ImageDescription;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    Iptc4xmpExt:DigitalSourceType="${TYPES_SOURCE[source]}"
    xmp:CreatorTool="${echapperXml(LOGICIEL)}">
   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${echapperXml(description)}</rdf:li></rdf:Alt></dc:description>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
};

/** The digital source type an image's XMP declares, or null (tests, support). */
export const lireTypeSource = async (image: Buffer): Promise<string | null> => {
  const { xmp } = await sharp(image).metadata();
  return xmp ? (/Iptc4xmpExt:DigitalSourceType="([^"]+)"/.exec(xmp.toString('utf8'))?.[1] ?? null) : null;
};

/** Reads back what exifDeProvenance wrote (tests, support). */
export const lireProvenance = async (image: Buffer): Promise<string | null> => {
  const { exif } = await sharp(image).metadata();
  if (!exif) return null;
  const texte = exif.toString('latin1');
  const debut = texte.indexOf('Edited by Retouche');
  return debut < 0 ? null : texte.slice(debut, texte.indexOf('\0', debut));
};
