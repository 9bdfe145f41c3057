#pragma once
// Small HDF5 helpers shared by the snapshot writer and reader: an owning handle, the innermost
// message of HDF5's error stack, and a guard that turns off HDF5's own error printing.
#include <hdf5.h>

#include <string>
#include <utility>

namespace kosmo::io {

// Owns one HDF5 identifier. Destruction closes silently (unwinding after an agreed failure);
// close() is the checked path used when all went well.
class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  H5Handle(H5Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  H5Handle& operator=(H5Handle&& other) noexcept {
    if (this != &other) {
      close();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { close(); }

  hid_t get() const { return id_; }
  herr_t close() {
    herr_t status = 0;
    if (id_ >= 0 && closer_ != nullptr) status = closer_(id_);
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

// The innermost message of HDF5's error stack, to say *why* a call failed.
inline std::string hdf5_error_detail() {
  std::string detail;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* entry, void* data) -> herr_t {
        auto& text = *static_cast<std::string*>(data);
        text = std::string(entry->func_name ? entry->func_name : "?") + ": " + (entry->desc ? entry->desc : "?");
        return 0;
      },
      &detail);
  return detail.empty() ? std::string() : " (HDF5: " + detail + ")";
}

// Automatic printing of HDF5's error stack is off while a snapshot is written or read: failures are
// reported once, through kosmo::Error. The previous setting is restored afterwards.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace kosmo::io
