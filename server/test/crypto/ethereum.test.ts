import { keccak256 } from '@gateway/ledger';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/curves/utils.js';
import { describe, expect, it } from 'vitest';
import { eip712Digest, parseEthAddress, recoverSigner, toChecksumAddress } from '../../src/crypto/ethereum.js';

/** Signs like eth_signTypedData_v4: r ‖ s ‖ v with v = 27 + recovery, low s. */
function signTypedText(privateKey: Uint8Array, text: string, chainId: number): Uint8Array {
  const sig = secp256k1.sign(eip712Digest(text, chainId), privateKey, { prehash: false, format: 'recovered' });
  // noble's recovered format is recovery ‖ r ‖ s.
  return new Uint8Array([...sig.subarray(1), 27 + (sig[0] ?? 0)]);
}

const addressOf = (privateKey: Uint8Array) =>
  keccak256(secp256k1.getPublicKey(privateKey, false).subarray(1)).subarray(12);

describe('Ethereum-style accounts', () => {
  it('checksums addresses as EIP-55 does (its published vectors)', () => {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(hexToBytes(address.slice(2).toLowerCase()))).toBe(address);
      expect(parseEthAddress(address)).not.toBeNull();
    }
  });

  it('refuses a mixed-case address with a wrong checksum, accepts single-case ones', () => {
    expect(parseEthAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBeNull();
    expect(parseEthAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).not.toBeNull();
    expect(parseEthAddress('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED')).not.toBeNull();
    expect(parseEthAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea')).toBeNull();
    expect(parseEthAddress('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBeNull();
  });

  it('computes the EIP-712 digest of the token message independently of the signer', () => {
    // domain separator = keccak(typeHash(EIP712Domain(uint256 chainId)) ‖ uint256(87))
    const enc = new TextEncoder();
    const domainType = keccak256(enc.encode('EIP712Domain(uint256 chainId)'));
    const chain = hexToBytes(`${'0'.repeat(62)}57`);
    const separator = keccak256(new Uint8Array([...domainType, ...chain]));
    const struct = keccak256(
      new Uint8Array([
        ...keccak256(enc.encode('Message(string text)')),
        ...keccak256(enc.encode('W:wx.network:1794402800')),
      ]),
    );
    const expected = keccak256(new Uint8Array([0x19, 0x01, ...separator, ...struct]));
    expect(bytesToHex(eip712Digest('W:wx.network:1794402800', 87))).toBe(bytesToHex(expected));
  });

  it('recovers the signer of a typed-data signature and nothing else', () => {
    const privateKey = secp256k1.utils.randomSecretKey();
    const signature = signTypedText(privateKey, 'W:waves.exchange:1794402800', 87);
    const recovered = recoverSigner(eip712Digest('W:waves.exchange:1794402800', 87), signature);
    expect(recovered && bytesToHex(recovered)).toBe(bytesToHex(addressOf(privateKey)));
    const other = recoverSigner(eip712Digest('W:waves.exchange:1794402801', 87), signature);
    expect(other && bytesToHex(other)).not.toBe(bytesToHex(addressOf(privateKey)));
    expect(recoverSigner(eip712Digest('T:waves.exchange:1794402800', 84), signature)).not.toEqual(
      addressOf(privateKey),
    );
  });

  it('refuses the high-s twin of a valid signature, and bad recovery bytes', () => {
    const privateKey = secp256k1.utils.randomSecretKey();
    const digest = eip712Digest('W:waves.exchange:1794402800', 87);
    const signature = signTypedText(privateKey, 'W:waves.exchange:1794402800', 87);
    const n = secp256k1.Point.Fn.ORDER;
    const s = BigInt(`0x${bytesToHex(signature.subarray(32, 64))}`);
    const twin = Uint8Array.from(signature);
    twin.set(hexToBytes((n - s).toString(16).padStart(64, '0')), 32);
    twin[64] = (signature[64] ?? 27) === 27 ? 28 : 27;
    expect(recoverSigner(digest, twin)).toBeNull();
    const badV = Uint8Array.from(signature);
    badV[64] = 29;
    expect(recoverSigner(digest, badV)).toBeNull();
    expect(recoverSigner(digest, signature.subarray(0, 64))).toBeNull();
  });
});
