//! `/proc/cpuinfo` parsing. CPU model decides per-transaction CPU cost and
//! the `hypervisor` flag says the "device" underneath may be a file on
//! someone else's disk, which changes what sync latency means.

/// The CPU model name: the first `model name` entry, falling back to the
/// keys other architectures use (`Processor` on older ARM kernels,
/// `cpu model` on MIPS, `cpu` on POWER).
pub(crate) fn model(text: &str) -> Option<String> {
    ["model name", "Processor", "cpu model", "cpu"]
        .iter()
        .find_map(|key| first_value(text, key))
}

/// Whether any CPU advertises the `hypervisor` flag (x86 guests).
pub(crate) fn has_hypervisor_flag(text: &str) -> bool {
    entries(text)
        .filter(|(k, _)| *k == "flags")
        .any(|(_, v)| v.split_whitespace().any(|f| f == "hypervisor"))
}

fn first_value(text: &str, key: &str) -> Option<String> {
    entries(text)
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.to_owned())
        .filter(|v| !v.is_empty())
}

/// `key : value` pairs, keys and values trimmed (keys are tab-padded).
fn entries(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|line| {
        let (k, v) = line.split_once(':')?;
        Some((k.trim(), v.trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC 7B13
flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm
bogomips\t: 4899.99

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13
flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm
";

    const ARM64: &str = "processor\t: 0
BogoMIPS\t: 48.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU implementer\t: 0x41
CPU part\t: 0xd08
";

    #[test]
    fn x86_model_and_hypervisor() {
        assert_eq!(model(X86).as_deref(), Some("AMD EPYC 7B13"));
        assert!(has_hypervisor_flag(X86));
    }

    #[test]
    fn bare_metal_has_no_hypervisor_flag() {
        let text = "model name\t: Intel(R) Core(TM) i7\nflags\t\t: fpu vme hypervisor_x\n";
        assert!(!has_hypervisor_flag(text));
    }

    #[test]
    fn arm_without_model_name_is_none() {
        assert_eq!(model(ARM64), None);
        assert!(!has_hypervisor_flag(ARM64));
    }

    #[test]
    fn fallback_keys() {
        assert_eq!(
            model("Processor\t: ARMv7 Processor rev 4 (v7l)\n").as_deref(),
            Some("ARMv7 Processor rev 4 (v7l)")
        );
        assert_eq!(
            model("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n").as_deref(),
            Some("POWER9 (raw), altivec supported")
        );
    }
}
