// The pixels of the page's WebGL canvas that differ from its background (#1b1d22), for the page
// drivers (page_check.mjs, directivity_check.mjs): { object, total }.
export const canvasPixels = (page) => page.evaluate(() => {
  const c = document.getElementById("canvas");
  const copy = document.createElement("canvas");
  copy.width = c.width; copy.height = c.height;
  const g = copy.getContext("2d");
  g.drawImage(c, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let object = 0;
  for (let i = 0; i < d.length; i += 4)
    if (Math.abs(d[i] - 0x1b) + Math.abs(d[i + 1] - 0x1d) + Math.abs(d[i + 2] - 0x22) > 24) ++object;
  return { object, total: d.length / 4 };
});
