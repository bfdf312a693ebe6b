// [SP-2.5] CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR.
// Check value: crc16("123456789") = 0x29B1. Bit by bit on purpose: it is the same loop as the C
// reference (c/meterline.c), and a line is at most 1 KiB, so a table buys nothing worth the bytes.

export function crc16(text: string): number {
  let crc = 0xffff;
  for (let i = 0; i < text.length; i++) {
    crc ^= (text.charCodeAt(i) & 0xff) << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The four upper-case hex digits written after `*`. */
export function crcHex(text: string): string {
  return crc16(text).toString(16).toUpperCase().padStart(4, '0');
}
