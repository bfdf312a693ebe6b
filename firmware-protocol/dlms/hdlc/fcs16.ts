// [HD-2.5] The frame check sequence of IEC 62056-46 (ISO/IEC 13239's FCS-16, catalogued as CRC-16/X-25):
// polynomial 0x1021 taken bit-reversed (0x8408), initial value 0xFFFF, reflected in and out, final XOR
// 0xFFFF; check value 0x906E for the ASCII bytes "123456789". It goes on the wire low byte first.
// Table-driven because a meter's serial loop runs it over every byte of every frame.

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
    table[n] = crc;
  }
  return table;
})();

/** FCS-16 of `bytes[start..end)`. */
export function fcs16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return (crc ^ 0xffff) & 0xffff;
}
