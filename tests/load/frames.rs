//! `frames [streams] [appends] [gap-µs] [bytes]`: what the kernel alone asks of a server that
//! sends each append to `streams` followers over loopback TCP (issue 11's "within 10 %"). One
//! thread writes a frame to every follower's socket, then waits `gap` (appends come apart, so
//! each frame finds its reader asleep and wakes it, as at a real table); one thread per follower
//! reads. Prints the CPU time the writer and the readers spent per frame: the floor under any
//! server's cost of a delivery, with no HTTP, no runtime and no serialising.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// CPU time (user + system) of the calling thread so far.
fn thread_cpu() -> Result<Duration, String> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").map_err(|e| e.to_string())?;
    super::cpu_ticks(&stat).ok_or_else(|| "unreadable /proc/thread-self/stat".into())
}

/// The kernel's floor: CPU per frame of the writer and of the readers.
pub struct Floor {
    pub writer: Duration,
    pub readers: Duration,
}

pub fn frames(streams: usize, appends: usize, gap: Duration, bytes: usize) -> Result<(), String> {
    let floor = floor(streams, appends, gap, bytes)?;
    let us = |cpu: Duration| cpu.as_secs_f64() * 1e6;
    println!(
        "{streams} followers, {appends} appends {} µs apart, {bytes}-byte frames",
        gap.as_micros()
    );
    println!(
        "writer CPU per frame  {:.2} µs ({:.1} µs per append to {streams} followers)",
        us(floor.writer),
        us(floor.writer) * streams as f64
    );
    println!(
        "reader CPU per frame  {:.2} µs (the followers' side, on the same cores here)",
        us(floor.readers)
    );
    Ok(())
}

/// Measures the floor (see the module): `appends` frames of `bytes` to each of `streams`
/// followers, `gap` apart.
pub fn floor(streams: usize, appends: usize, gap: Duration, bytes: usize) -> Result<Floor, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let mut writers = Vec::with_capacity(streams);
    let mut readers = Vec::with_capacity(streams);
    for _ in 0..streams {
        let writer = TcpStream::connect(address).map_err(|e| e.to_string())?;
        writer.set_nodelay(true).map_err(|e| e.to_string())?;
        let (mut reader, _) = listener.accept().map_err(|e| e.to_string())?;
        writers.push(writer);
        readers.push(std::thread::spawn(
            move || -> Result<(Duration, u64), String> {
                let mut buffer = vec![0u8; 64 * 1024];
                let mut read = 0u64;
                loop {
                    match reader.read(&mut buffer) {
                        Ok(0) => return Ok((thread_cpu()?, read)),
                        Ok(n) => read += n as u64,
                        Err(e) => return Err(e.to_string()),
                    }
                }
            },
        ));
    }
    let frame = vec![b'x'; bytes];
    let before = thread_cpu()?;
    for _ in 0..appends {
        for writer in &mut writers {
            writer.write_all(&frame).map_err(|e| e.to_string())?;
        }
        if !gap.is_zero() {
            std::thread::sleep(gap);
        }
    }
    let written = thread_cpu()? - before;
    drop(writers);
    let mut read_cpu = Duration::ZERO;
    for reader in readers {
        let (cpu, read) = reader.join().map_err(|_| "a reader panicked")??;
        if read != (appends * bytes) as u64 {
            return Err(format!(
                "a reader got {read} bytes, not {}",
                appends * bytes
            ));
        }
        read_cpu += cpu;
    }
    let frames = (streams * appends) as u32;
    Ok(Floor {
        writer: written / frames,
        readers: read_cpu / frames,
    })
}
