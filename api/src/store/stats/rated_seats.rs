//! A rated game's points, packed into one value (`rated_games.points`): a row a game instead
//! of a row a seat. A recomputation writes every game after the one that changed, and SQLite's
//! cost is per row inserted: 350,000 seats as rows took 1.5 s to write, the same 100,000 games
//! packed 0.3 s (docs/bench-log/2026-12-06.md, "A row a rated game").
//!
//! Each seat, in seat order: the player id's length (`u16`) and the id (UTF-8), the rank and the
//! player's rated games so far (`i64`), then μ and σ before and after (`f64`), little-endian.
//! The numbers are kept as their bits: a rating read back is the one written, to the last bit,
//! so a recomputation that starts from a stored point gives what one from scratch gives.

use crate::ratings::Rating;
use crate::store::error::StoreError;

/// One player's point in a rated game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SeatPoint<'a> {
    pub player_id: &'a str,
    pub rank: i64,
    /// The player's rated games of this game so far, this one included.
    pub games: i64,
    pub before: Rating,
    pub after: Rating,
}

/// Bytes a seat takes besides its player id.
const FIXED: usize = 2 + 8 * 6;

/// The seats' points as one value.
pub(super) fn pack(seats: &[SeatPoint<'_>]) -> Vec<u8> {
    let size = seats.iter().map(|s| FIXED + s.player_id.len()).sum();
    let mut bytes = Vec::with_capacity(size);
    for seat in seats {
        // Player ids are the server's UUIDs (or an import's ids, far shorter than 64 KiB).
        let id_len = u16::try_from(seat.player_id.len()).unwrap_or(u16::MAX);
        bytes.extend_from_slice(&id_len.to_le_bytes());
        bytes.extend_from_slice(&seat.player_id.as_bytes()[..usize::from(id_len)]);
        bytes.extend_from_slice(&seat.rank.to_le_bytes());
        bytes.extend_from_slice(&seat.games.to_le_bytes());
        for number in [
            seat.before.mu,
            seat.before.sigma,
            seat.after.mu,
            seat.after.sigma,
        ] {
            bytes.extend_from_slice(&number.to_le_bytes());
        }
    }
    bytes
}

/// The seats' points packed in `bytes`, in seat order.
pub(super) fn unpack(bytes: &[u8]) -> Result<Vec<SeatPoint<'_>>, StoreError> {
    let corrupt = || StoreError::Corrupt(format!("a rated game's points ({} bytes)", bytes.len()));
    let mut seats = Vec::with_capacity(4);
    let mut rest = bytes;
    while !rest.is_empty() {
        let (len, after_len) = rest.split_first_chunk::<2>().ok_or_else(corrupt)?;
        let len = usize::from(u16::from_le_bytes(*len));
        if after_len.len() < len + FIXED - 2 {
            return Err(corrupt());
        }
        let (id, numbers) = after_len.split_at(len);
        let player_id = std::str::from_utf8(id).map_err(|_| corrupt())?;
        let word = |i: usize| -> [u8; 8] {
            let mut w = [0; 8];
            w.copy_from_slice(&numbers[8 * i..8 * i + 8]);
            w
        };
        let real = |i: usize| f64::from_le_bytes(word(i));
        seats.push(SeatPoint {
            player_id,
            rank: i64::from_le_bytes(word(0)),
            games: i64::from_le_bytes(word(1)),
            before: Rating {
                mu: real(2),
                sigma: real(3),
            },
            after: Rating {
                mu: real(4),
                sigma: real(5),
            },
        });
        rest = &numbers[8 * 6..];
    }
    Ok(seats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(player_id: &str, rank: i64, games: i64, numbers: [f64; 4]) -> SeatPoint<'_> {
        SeatPoint {
            player_id,
            rank,
            games,
            before: Rating {
                mu: numbers[0],
                sigma: numbers[1],
            },
            after: Rating {
                mu: numbers[2],
                sigma: numbers[3],
            },
        }
    }

    #[test]
    fn packed_seats_read_back_to_the_last_bit_in_seat_order() {
        let seats = [
            seat(
                "8e0c1b2a-0000-4000-8000-000000000001",
                2,
                14,
                [25.0, 25.0 / 3.0, 24.123456789012345, 0.1 + 0.2],
            ),
            seat("ann", 1, 1, [f64::MIN_POSITIVE, 1e-300, -3.5, 7.25]),
            seat("", 2, 3, [1.0, 2.0, 3.0, 4.0]),
        ];
        let bytes = pack(&seats);
        assert_eq!(bytes.len(), 3 * FIXED + 36 + 3);
        let back = unpack(&bytes).expect("unpacks");
        assert_eq!(back, seats);
        assert_eq!(back[0].after.sigma.to_bits(), (0.1f64 + 0.2).to_bits());
    }

    #[test]
    fn no_seats_pack_to_nothing() {
        assert!(pack(&[]).is_empty());
        assert_eq!(unpack(&[]).expect("unpacks"), []);
    }

    #[test]
    fn a_cut_or_garbled_value_is_corrupt_data_not_a_panic() {
        let bytes = pack(&[seat("bo", 1, 1, [1.0, 2.0, 3.0, 4.0])]);
        for cut in 1..bytes.len() {
            assert!(
                matches!(unpack(&bytes[..cut]), Err(StoreError::Corrupt(_))),
                "cut at {cut}"
            );
        }
        let mut not_utf8 = bytes.clone();
        not_utf8[2] = 0xff;
        assert!(matches!(unpack(&not_utf8), Err(StoreError::Corrupt(_))));
    }
}
