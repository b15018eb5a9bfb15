//! How busy the machine is: the cores this process may run on, and the
//! threads runnable right now, so that a program whose results depend on
//! time (a match on a clock) can say when the machine cannot give them.

use std::time::Duration;

/// The cores this process may run on (its affinity and control group's
/// share, as the standard library reads them); at least 1.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Threads runnable on the whole machine at this instant, the reader
/// included (`procs_running` of `/proc/stat`); `None` where the system
/// does not say.
pub fn runnable_threads() -> Option<u32> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|l| l.strip_prefix("procs_running "))
        .and_then(|n| n.trim().parse().ok())
}

/// Other threads runnable beside the caller, on average over `samples`
/// readings `every` apart (one reading is one instant: a machine's load
/// comes and goes within milliseconds); `None` where the system does not
/// say.
pub fn other_runnable(samples: u32, every: Duration) -> Option<f64> {
    let mut total = 0u64;
    for i in 0..samples.max(1) {
        if i > 0 {
            std::thread::sleep(every);
        }
        // The reader itself is running.
        total += u64::from(runnable_threads()?.saturating_sub(1));
    }
    Some(total as f64 / f64::from(samples.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spinning_thread_is_seen_as_runnable() {
        if runnable_threads().is_none() {
            return; // not Linux
        }
        // Each spinning thread is runnable at every instant: the mean
        // over many readings sees at least most of them (a reading may
        // fall while one is being switched).
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..3)
            .map(|_| {
                let stop = std::sync::Arc::clone(&stop);
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        let seen = other_runnable(50, Duration::from_millis(1)).unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for s in spinners {
            s.join().unwrap();
        }
        assert!(seen >= 2.0, "{seen}");
        assert!(cores() >= 1);
    }
}
